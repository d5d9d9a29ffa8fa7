package dev.ioqos.api.v1alpha1;

/** A field value that admission should have refused: names the field, the value and why. */
public class InvalidApiValueException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final String value;

  public InvalidApiValueException(String field, String value, String reason) {
    this(field, value, reason, null);
  }

  public InvalidApiValueException(String field, String value, String reason, Throwable cause) {
    super(field + ": invalid value '" + value + "': " + reason, cause);
    this.field = field;
    this.value = value;
  }

  /** The field's name, e.g. {@code latencyTarget}. */
  public String field() {
    return field;
  }

  /** The value as written. */
  public String value() {
    return value;
  }
}

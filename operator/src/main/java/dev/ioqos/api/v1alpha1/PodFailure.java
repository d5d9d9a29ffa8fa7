package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** One pod whose values could not be applied, and why. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PodFailure {
  /** Longer messages are cut by {@link #of}; the API server refuses longer ones. */
  public static final int MAX_MESSAGE_LENGTH = 1024;

  /** Longer reasons are cut by {@link #of}. */
  public static final int MAX_REASON_LENGTH = 128;

  @Required
  @Size(max = 63)
  private String namespace;

  @Required
  @Size(max = 253)
  private String name;

  @JsonPropertyDescription("A CamelCase reason, e.g. NoSuchDevice, NotSupported.")
  @Size(max = MAX_REASON_LENGTH)
  private String reason;

  @JsonPropertyDescription("The kernel's answer with the file and value written.")
  @Size(max = MAX_MESSAGE_LENGTH)
  private String message;

  /** A failure whose reason and message are cut to the lengths the API server accepts. */
  public static PodFailure of(String namespace, String name, String reason, String message) {
    PodFailure failure = new PodFailure();
    failure.setNamespace(namespace);
    failure.setName(name);
    failure.setReason(cut(reason, MAX_REASON_LENGTH));
    failure.setMessage(cut(message, MAX_MESSAGE_LENGTH));
    return failure;
  }

  /** {@code text} cut to {@code max} characters with an ellipsis; null stays null. */
  static String cut(String text, int max) {
    if (text == null || text.length() <= max) {
      return text;
    }
    // maxLength counts code points and Java counts UTF-16 units, so this cut is never too long;
    // it only must not split a surrogate pair.
    int end = max - 3;
    if (Character.isHighSurrogate(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(0, end) + "...";
  }

  public String getNamespace() {
    return namespace;
  }

  public void setNamespace(String namespace) {
    this.namespace = namespace;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }
}

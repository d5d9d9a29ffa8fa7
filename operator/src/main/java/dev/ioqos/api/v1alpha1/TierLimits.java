package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.OptionalLong;

/** A tier's io.max limits; an omitted field means no limit. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TierLimits {
  /**
   * The highest IOPS limit io.max holds as a number: the kernel keeps riops/wiops in 32 bits,
   * clamps larger values to UINT_MAX and prints UINT_MAX as "max" (no limit), so a larger value
   * would read back as unlimited and never match.
   */
  public static final long MAX_IOPS = 4_294_967_294L;

  // int-or-string: CEL sees the value as dyn, so each rule checks the type first. The API server
  // sizes a dyn string at the maximum request size whatever maxLength says, so each quantity
  // function costs ~0.6M per tier; at most two per rule keep MAX_TIERS tiers within the
  // per-rule budget, hence three rules rather than one.
  private static final String QUANTITY = "type(self) == int || isQuantity(self)";
  private static final String POSITIVE =
      "type(self) == int ? self > 0 : (!isQuantity(self) ||"
          + " quantity(self).isGreaterThan(quantity('0')))";
  // quantity().isInteger() is false for any value written with a decimal point, even 1.5Ki.
  private static final String WHOLE =
      "type(self) == int || !isQuantity(self) || quantity(self).isInteger()";
  private static final String QUANTITY_MESSAGE =
      " must be an integer or a quantity such as 50Mi, 1G, 500k";
  private static final String POSITIVE_MESSAGE = " must be greater than 0";
  private static final String WHOLE_MESSAGE =
      " must be a whole number of bytes below 8Ei, written without a decimal point or milli-units"
          + " (e.g. 1536Mi, not 1.5Gi, 0.5 or 100m)";

  @JsonPropertyDescription("Read bytes per second (io.max rbps), e.g. 50Mi.")
  @ValidationRule(
      value = QUANTITY,
      message = "readBytesPerSecond" + QUANTITY_MESSAGE,
      reason = "FieldValueInvalid")
  @ValidationRule(
      value = POSITIVE,
      message = "readBytesPerSecond" + POSITIVE_MESSAGE,
      reason = "FieldValueInvalid")
  @ValidationRule(
      value = WHOLE,
      message = "readBytesPerSecond" + WHOLE_MESSAGE,
      reason = "FieldValueInvalid")
  private Quantity readBytesPerSecond;

  @JsonPropertyDescription("Write bytes per second (io.max wbps), e.g. 20Mi.")
  @ValidationRule(
      value = QUANTITY,
      message = "writeBytesPerSecond" + QUANTITY_MESSAGE,
      reason = "FieldValueInvalid")
  @ValidationRule(
      value = POSITIVE,
      message = "writeBytesPerSecond" + POSITIVE_MESSAGE,
      reason = "FieldValueInvalid")
  @ValidationRule(
      value = WHOLE,
      message = "writeBytesPerSecond" + WHOLE_MESSAGE,
      reason = "FieldValueInvalid")
  private Quantity writeBytesPerSecond;

  @JsonPropertyDescription("Read operations per second (io.max riops).")
  @JsonProperty("readIOPS")
  @Min(1)
  @Max(MAX_IOPS)
  private Long readIOPS;

  @JsonPropertyDescription("Write operations per second (io.max wiops).")
  @JsonProperty("writeIOPS")
  @Min(1)
  @Max(MAX_IOPS)
  private Long writeIOPS;

  public Quantity getReadBytesPerSecond() {
    return readBytesPerSecond;
  }

  public void setReadBytesPerSecond(Quantity readBytesPerSecond) {
    this.readBytesPerSecond = readBytesPerSecond;
  }

  public Quantity getWriteBytesPerSecond() {
    return writeBytesPerSecond;
  }

  public void setWriteBytesPerSecond(Quantity writeBytesPerSecond) {
    this.writeBytesPerSecond = writeBytesPerSecond;
  }

  public Long getReadIOPS() {
    return readIOPS;
  }

  public void setReadIOPS(Long readIOPS) {
    this.readIOPS = readIOPS;
  }

  public Long getWriteIOPS() {
    return writeIOPS;
  }

  public void setWriteIOPS(Long writeIOPS) {
    this.writeIOPS = writeIOPS;
  }

  /** {@link #getReadBytesPerSecond()} in bytes per second, empty when unlimited. */
  public OptionalLong readBytesPerSecondValue() {
    return bytes("readBytesPerSecond", readBytesPerSecond);
  }

  /** {@link #getWriteBytesPerSecond()} in bytes per second, empty when unlimited. */
  public OptionalLong writeBytesPerSecondValue() {
    return bytes("writeBytesPerSecond", writeBytesPerSecond);
  }

  private static OptionalLong bytes(String field, Quantity quantity) {
    return quantity == null
        ? OptionalLong.empty()
        : OptionalLong.of(ApiUnits.bytesPerSecond(field, quantity));
  }
}

package dev.ioqos.api.v1alpha1;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Converts API values to kernel units: latencyTarget to microseconds, quantities to bytes/s. */
public final class ApiUnits {
  /**
   * The latencyTarget grammar, shared by admission (CEL) and {@link #latencyMicros}: a whole number
   * of microseconds, milliseconds or seconds; io.latency takes microseconds.
   */
  static final String LATENCY_TARGET_CEL_REGEX = "^[0-9]{1,9}(us|ms|s)$";

  private static final Pattern LATENCY_TARGET = Pattern.compile(LATENCY_TARGET_CEL_REGEX);

  /**
   * resource.Quantity's grammar: a signed decimal number, then a binary or decimal SI suffix or a
   * decimal exponent. Exponents are cut at 3 digits so that scaling stays cheap; anything beyond
   * e18 does not fit a long anyway.
   */
  private static final Pattern QUANTITY =
      Pattern.compile(
          "^([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))"
              + "([eE][+-]?[0-9]{1,3}|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$");

  private ApiUnits() {}

  /**
   * {@code 500us} -> 500, {@code 5ms} -> 5000, {@code 1s} -> 1000000.
   *
   * @throws InvalidApiValueException when the text is not a positive whole duration in us, ms or s
   */
  public static long latencyMicros(String latencyTarget) {
    Objects.requireNonNull(latencyTarget, "latencyTarget");
    Matcher matcher = LATENCY_TARGET.matcher(latencyTarget);
    if (!matcher.matches()) {
      throw new InvalidApiValueException(
          "latencyTarget",
          latencyTarget,
          "expected a whole number followed by us, ms or s, e.g. 500us, 5ms, 1s");
    }
    String unit = matcher.group(1);
    long amount =
        Long.parseLong(latencyTarget.substring(0, latencyTarget.length() - unit.length()));
    if (amount == 0) {
      throw new InvalidApiValueException("latencyTarget", latencyTarget, "must be greater than 0");
    }
    return switch (unit) {
      case "us" -> amount;
      case "ms" -> amount * 1_000L;
      case "s" -> amount * 1_000_000L;
      default -> throw new IllegalStateException("unit " + unit + " matched but not handled");
    };
  }

  /**
   * A Kubernetes quantity as whole bytes per second: {@code 50Mi} -> 52428800, {@code 1G} ->
   * 1000000000, {@code 500k} -> 500000, {@code 1.5Ki} -> 1536.
   *
   * <p>Admission is stricter (see {@link TierLimits}): it refuses any decimal point, even where the
   * value is whole, because the API server's {@code isInteger()} does.
   *
   * @throws InvalidApiValueException when the quantity is not a number, is zero or negative, is a
   *     fraction of a byte (e.g. {@code 0.5}, {@code 100m}) or does not fit in a long
   */
  public static long bytesPerSecond(Quantity quantity) {
    return bytesPerSecond("bytesPerSecond", quantity);
  }

  /** {@link #bytesPerSecond(Quantity)}, naming {@code field} in the exception. */
  public static long bytesPerSecond(String field, Quantity quantity) {
    Objects.requireNonNull(quantity, field);
    String text =
        Objects.toString(quantity.getAmount(), "") + Objects.toString(quantity.getFormat(), "");
    BigDecimal amount = exactAmount(field, text);
    if (amount.signum() <= 0) {
      throw new InvalidApiValueException(field, text, "must be greater than 0");
    }
    if (amount.stripTrailingZeros().scale() > 0) {
      throw new InvalidApiValueException(
          field, text, "is a fraction of a byte (" + amount.toPlainString() + ")");
    }
    if (amount.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw new InvalidApiValueException(field, text, "is larger than " + Long.MAX_VALUE);
    }
    return amount.longValueExact();
  }

  // Quantity.getNumericalAmount() rounds to 16 digits (MathContext.DECIMAL64): 7Ei comes out
  // 168 bytes off. This follows the Kubernetes grammar (resource.Quantity) and stays exact.
  private static BigDecimal exactAmount(String field, String text) {
    Matcher matcher = QUANTITY.matcher(text);
    if (!matcher.matches()) {
      throw new InvalidApiValueException(
          field, text, "not a Kubernetes quantity such as 50Mi, 1G, 500k");
    }
    BigDecimal number = new BigDecimal(matcher.group(1));
    String suffix = matcher.group(2) == null ? "" : matcher.group(2);
    return switch (suffix) {
      case "" -> number;
      case "n" -> number.scaleByPowerOfTen(-9);
      case "u" -> number.scaleByPowerOfTen(-6);
      case "m" -> number.scaleByPowerOfTen(-3);
      case "k" -> number.scaleByPowerOfTen(3);
      case "M" -> number.scaleByPowerOfTen(6);
      case "G" -> number.scaleByPowerOfTen(9);
      case "T" -> number.scaleByPowerOfTen(12);
      case "P" -> number.scaleByPowerOfTen(15);
      case "E" -> number.scaleByPowerOfTen(18);
      case "Ki" -> number.multiply(powerOfTwo(10));
      case "Mi" -> number.multiply(powerOfTwo(20));
      case "Gi" -> number.multiply(powerOfTwo(30));
      case "Ti" -> number.multiply(powerOfTwo(40));
      case "Pi" -> number.multiply(powerOfTwo(50));
      case "Ei" -> number.multiply(powerOfTwo(60));
      default -> number.scaleByPowerOfTen(Integer.parseInt(suffix.substring(1)));
    };
  }

  private static BigDecimal powerOfTwo(int exponent) {
    return new BigDecimal(BigInteger.ONE.shiftLeft(exponent));
  }
}

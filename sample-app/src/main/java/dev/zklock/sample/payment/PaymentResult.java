package dev.zklock.sample.payment;

import org.jspecify.annotations.Nullable;

/**
 * What the payment gateway answered.
 *
 * @param approved whether the payment went through
 * @param reference the gateway's reference of an approved payment, or {@code null}
 * @param message why it did not go through, or {@code null}
 */
public record PaymentResult(boolean approved, @Nullable String reference, @Nullable String message) {

	/**
	 * An approved payment.
	 * @param reference the gateway's reference
	 * @return the result
	 */
	public static PaymentResult approved(String reference) {
		return new PaymentResult(true, reference, null);
	}

	/**
	 * No call was made: every permit of the gateway was in use.
	 * @param message why
	 * @return the result
	 */
	public static PaymentResult busy(String message) {
		return new PaymentResult(false, null, message);
	}

}

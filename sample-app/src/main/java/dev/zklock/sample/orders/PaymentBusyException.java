package dev.zklock.sample.orders;

import org.jspecify.annotations.Nullable;

/**
 * The payment gateway had no free permit; the order stays reserved and can be paid
 * again.
 */
public class PaymentBusyException extends RuntimeException {

	/**
	 * Create a new exception.
	 * @param orderId the order
	 * @param message the gateway's answer
	 */
	public PaymentBusyException(long orderId, @Nullable String message) {
		super("Order " + orderId + " was not paid: " + message);
	}

}

package dev.zklock.sample.orders;

/**
 * Where an order stands.
 */
public enum OrderStatus {

	/**
	 * Placed; its stock is being reserved.
	 */
	PENDING,

	/**
	 * Its stock is reserved; waiting for payment.
	 */
	RESERVED,

	/**
	 * Not placed: not enough stock, the stock was busy, or the stock write was fenced
	 * off. See the reason.
	 */
	REJECTED,

	/**
	 * Paid.
	 */
	PAID,

	/**
	 * Cancelled by the customer; its stock was put back.
	 */
	CANCELLED,

	/**
	 * Not paid within the payment window; its stock was put back.
	 */
	EXPIRED

}

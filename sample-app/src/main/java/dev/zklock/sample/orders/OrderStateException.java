package dev.zklock.sample.orders;

/**
 * An order cannot be changed as asked.
 */
public class OrderStateException extends RuntimeException {

	/**
	 * Create a new exception.
	 * @param message what was asked and why it cannot be done
	 */
	public OrderStateException(String message) {
		super(message);
	}

	static OrderStateException notReserved(Order order, String action) {
		return new OrderStateException("Cannot " + action + " order " + order.id() + ": it is " + order.status()
				+ "; only RESERVED orders can be changed");
	}

}

package dev.zklock.sample.orders;

/**
 * No order has the given id.
 */
public class UnknownOrderException extends RuntimeException {

	/**
	 * Create a new exception.
	 * @param id the id
	 */
	public UnknownOrderException(long id) {
		super("No order has id " + id);
	}

}

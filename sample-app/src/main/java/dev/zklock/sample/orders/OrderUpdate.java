package dev.zklock.sample.orders;

/**
 * A change of the quantity of a reserved order.
 *
 * @param id the order id
 * @param quantity the new number of units, at least 1
 */
public record OrderUpdate(long id, int quantity) {

	/**
	 * Check the request.
	 * @throws IllegalArgumentException naming the field at fault
	 */
	public OrderUpdate {
		if (quantity < 1) {
			throw new IllegalArgumentException("'quantity' must be at least 1, got " + quantity
					+ "; cancel the order to give all units back");
		}
	}

}

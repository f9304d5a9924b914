package dev.zklock.sample.orders;

/**
 * A request to place an order.
 *
 * @param warehouse the warehouse the units come from
 * @param sku the product
 * @param quantity the units to order, at least 1
 */
public record NewOrder(String warehouse, String sku, int quantity) {

	/**
	 * Check the request.
	 * @throws IllegalArgumentException naming the field at fault
	 */
	public NewOrder {
		if (warehouse == null || warehouse.isBlank()) {
			throw new IllegalArgumentException("'warehouse' is required, such as \"berlin\"");
		}
		if (sku == null || sku.isBlank()) {
			throw new IllegalArgumentException("'sku' is required, such as \"kettle\"");
		}
		if (quantity < 1) {
			throw new IllegalArgumentException("'quantity' must be at least 1, got " + quantity);
		}
	}

}

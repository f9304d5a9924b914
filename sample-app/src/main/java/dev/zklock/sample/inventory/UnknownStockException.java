package dev.zklock.sample.inventory;

/**
 * A warehouse does not stock a product.
 */
public class UnknownStockException extends RuntimeException {

	/**
	 * Create a new exception.
	 * @param warehouse the warehouse
	 * @param sku the product
	 */
	public UnknownStockException(String warehouse, String sku) {
		super("Warehouse '" + warehouse + "' has no stock row for SKU '" + sku + "'; create it with PUT /stock/"
				+ warehouse + "/" + sku);
	}

}

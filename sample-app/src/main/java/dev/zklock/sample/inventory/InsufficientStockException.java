package dev.zklock.sample.inventory;

/**
 * A warehouse has fewer units than asked for.
 */
public class InsufficientStockException extends RuntimeException {

	/**
	 * Create a new exception.
	 * @param level the stock as read
	 * @param wanted the units asked for
	 */
	public InsufficientStockException(StockLevel level, int wanted) {
		super("Warehouse '" + level.warehouse() + "' has " + level.quantity() + " units of '" + level.sku() + "', "
				+ wanted + " were asked for");
	}

}

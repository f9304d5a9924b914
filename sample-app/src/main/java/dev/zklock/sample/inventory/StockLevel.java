package dev.zklock.sample.inventory;

import java.time.Instant;

/**
 * The stock of one product in one warehouse.
 *
 * @param warehouse the warehouse
 * @param sku the product
 * @param quantity the units on hand
 * @param fence the largest fencing token that has written this row
 * @param updatedAt when the row was last written
 */
public record StockLevel(String warehouse, String sku, int quantity, long fence, Instant updatedAt) {

	/**
	 * The lock key of a stock row: {@code warehouse:sku}.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @return the key
	 */
	public static String lockKey(String warehouse, String sku) {
		return warehouse + ":" + sku;
	}

}

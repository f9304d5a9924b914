package dev.zklock.sample.inventory;

/**
 * A stock write was refused because its fencing token is older than the row's fence:
 * this instance lost the stock lock (a pause longer than the ZooKeeper session, for
 * example) and another instance has taken the lock and claimed the row since.
 */
public class FencedWriteRejectedException extends RuntimeException {

	private final String key;

	private final long token;

	/**
	 * Create a new exception.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @param token our fencing token
	 * @param fence the row's fence, newer than our token
	 */
	public FencedWriteRejectedException(String warehouse, String sku, long token, long fence) {
		super("Stock write of '" + StockLevel.lockKey(warehouse, sku) + "' with fencing token " + token
				+ " was rejected: the row's fence is " + fence + ", so a newer holder of lock 'stock' has claimed it. "
				+ "This instance lost the lock while it worked (a pause longer than the ZooKeeper session?); "
				+ "nothing was written, retry the request");
		this.key = StockLevel.lockKey(warehouse, sku);
		this.token = token;
	}

	/**
	 * The lock key of the row.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * The refused token.
	 * @return the token
	 */
	public long getToken() {
		return this.token;
	}

}

package dev.zklock.sample.inventory;

import java.time.Duration;
import java.util.List;
import java.util.function.LongFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Service;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.LockTimeoutException;
import dev.zklock.sample.SampleProperties;

/**
 * Changes stock. Every change of a row holds lock {@code stock} for key
 * {@code warehouse:sku} and writes the row fenced by the lock's token.
 */
@Service
public class StockService {

	/**
	 * The name of the lock of a stock row.
	 */
	public static final String LOCK = "stock";

	private static final Logger logger = LoggerFactory.getLogger(StockService.class);

	private final LockTemplate locks;

	private final FencedStock fencedStock;

	private final StockRepository repository;

	private final Duration lockTimeout;

	StockService(LockTemplate locks, FencedStock fencedStock, StockRepository repository,
			SampleProperties properties) {
		this.locks = locks;
		this.fencedStock = fencedStock;
		this.repository = repository;
		this.lockTimeout = properties.getStock().getLockTimeout();
	}

	/**
	 * Take units out of stock, if there are enough.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @param quantity the units to take
	 * @return whether they were taken, and the row
	 */
	public StockUpdate take(String warehouse, String sku, int quantity) {
		return withLock(warehouse, sku, (token) -> {
			StockLevel claimed = this.fencedStock.claim(warehouse, sku, token);
			if (claimed.quantity() < quantity) {
				return new StockUpdate(false, claimed);
			}
			return new StockUpdate(true, this.fencedStock.write(claimed, claimed.quantity() - quantity, token));
		});
	}

	/**
	 * Put units back into stock.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @param quantity the units to put back
	 * @return the row
	 */
	public StockLevel putBack(String warehouse, String sku, int quantity) {
		return withLock(warehouse, sku, (token) -> {
			StockLevel claimed = this.fencedStock.claim(warehouse, sku, token);
			return this.fencedStock.write(claimed, claimed.quantity() + quantity, token);
		});
	}

	/**
	 * Set the stock of a product, adding the row if it is new.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @param quantity the units on hand
	 * @return the row
	 */
	public StockLevel set(String warehouse, String sku, int quantity) {
		return withLock(warehouse, sku, (token) -> {
			if (this.repository.insert(warehouse, sku, quantity, token)) {
				logger.info("Added stock '{}' with {} units", StockLevel.lockKey(warehouse, sku), quantity);
				return this.repository.find(warehouse, sku).orElseThrow();
			}
			return this.fencedStock.write(this.fencedStock.claim(warehouse, sku, token), quantity, token);
		});
	}

	/**
	 * The stock of one product in one warehouse, read without a lock.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @return the row
	 */
	public StockLevel get(String warehouse, String sku) {
		return this.repository.find(warehouse, sku).orElseThrow(() -> new UnknownStockException(warehouse, sku));
	}

	/**
	 * All stock, read without a lock.
	 * @return the rows
	 */
	public List<StockLevel> list() {
		return this.repository.findAll();
	}

	private <T> T withLock(String warehouse, String sku, LongFunction<T> work) {
		String key = StockLevel.lockKey(warehouse, sku);
		LockRequest request = LockRequest.named(LOCK).keys(key).timeout(this.lockTimeout).build();
		try (LockHandle lock = this.locks.tryAcquire(request)) {
			if (!lock.isAcquired()) {
				throw new LockTimeoutException("Lock '" + LOCK + "' for key '" + key + "' was not acquired within "
						+ this.lockTimeout + "; the stock is busy, retry the request or raise sample.stock.lock-timeout");
			}
			return work.apply(lock.fencingToken());
		}
	}

}

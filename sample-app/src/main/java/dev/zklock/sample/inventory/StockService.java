package dev.zklock.sample.inventory;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

import dev.zklock.FencingToken;
import dev.zklock.LockContext;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.sample.SampleProperties;

/**
 * Changes stock. Every change of a row holds lock {@value #LOCK} for the row's key
 * {@code warehouse:sku}, and writes the row fenced by the lock's token, so a holder
 * that lost its lock without noticing cannot write over a newer holder's work. The
 * three ways to get at the token are all here: a {@link FencingToken} parameter,
 * {@link LockContext#current()} in a multi-key method, and {@link LockTemplate}.
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

	private final TransactionTemplate transaction;

	private final Duration lockTimeout;

	StockService(LockTemplate locks, FencedStock fencedStock, StockRepository repository,
			TransactionTemplate transaction, SampleProperties properties) {
		this.locks = locks;
		this.fencedStock = fencedStock;
		this.repository = repository;
		this.transaction = transaction;
		this.lockTimeout = properties.getStock().getLockTimeout();
	}

	/**
	 * Take units out of stock, if there are enough.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @param quantity the units to take
	 * @param fence filled in with the lock's fencing token; callers pass {@code null}
	 * @return whether they were taken, and the row
	 */
	@DistributedLock(name = LOCK, key = "#warehouse + ':' + #sku", timeout = "${sample.stock.lock-timeout:10s}")
	public StockUpdate take(String warehouse, String sku, int quantity, @Nullable FencingToken fence) {
		long token = filledIn(fence);
		StockLevel claimed = this.fencedStock.claim(warehouse, sku, token);
		if (claimed.quantity() < quantity) {
			return new StockUpdate(false, claimed);
		}
		return new StockUpdate(true, this.fencedStock.write(claimed, claimed.quantity() - quantity, token));
	}

	/**
	 * Put units back into stock.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @param quantity the units to put back
	 * @param fence filled in with the lock's fencing token; callers pass {@code null}
	 * @return the row
	 */
	@DistributedLock(name = LOCK, key = "#warehouse + ':' + #sku", timeout = "${sample.stock.lock-timeout:10s}")
	public StockLevel putBack(String warehouse, String sku, int quantity, @Nullable FencingToken fence) {
		long token = filledIn(fence);
		StockLevel claimed = this.fencedStock.claim(warehouse, sku, token);
		return this.fencedStock.write(claimed, claimed.quantity() + quantity, token);
	}

	/**
	 * Move units of a product from one warehouse to another. Both rows are locked
	 * together, in a fixed order, so that a transfer the other way round cannot
	 * deadlock with this one; each row is fenced by the token of its own key.
	 * @param sku the product
	 * @param from the source warehouse
	 * @param to the target warehouse
	 * @param quantity the units to move
	 * @return both rows after the move
	 * @throws InsufficientStockException when the source has too few units
	 */
	@DistributedLock(name = LOCK, key = "{#from + ':' + #sku, #to + ':' + #sku}",
			timeout = "${sample.stock.lock-timeout:10s}")
	public StockTransfer transfer(String sku, String from, String to, int quantity) {
		if (from.equals(to)) {
			throw new IllegalArgumentException("'from' and 'to' are both '" + from + "'; name two warehouses");
		}
		LockContext lock = LockContext.current();
		long fromToken = lock.fencingToken(StockLevel.lockKey(from, sku));
		long toToken = lock.fencingToken(StockLevel.lockKey(to, sku));
		StockLevel source = this.fencedStock.claim(from, sku, fromToken);
		StockLevel target = this.fencedStock.claim(to, sku, toToken);
		if (source.quantity() < quantity) {
			throw new InsufficientStockException(source, quantity);
		}
		// both writes or neither
		StockTransfer transfer = this.transaction.execute((status) -> new StockTransfer(quantity,
				this.fencedStock.write(source, source.quantity() - quantity, fromToken),
				this.fencedStock.write(target, target.quantity() + quantity, toToken)));
		logger.info("Moved {} units of '{}' from '{}' to '{}' under lock '{}'", quantity, sku, from, to, LOCK);
		return transfer;
	}

	/**
	 * Set the stock of a product, adding the row if it is new.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @param quantity the units on hand
	 * @return the row
	 */
	public StockLevel set(String warehouse, String sku, int quantity) {
		LockRequest request = LockRequest.named(LOCK)
			.keys(StockLevel.lockKey(warehouse, sku))
			.timeout(this.lockTimeout)
			.build();
		return this.locks.execute(request, () -> {
			long token = LockContext.current().fencingToken();
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

	// @DistributedLock replaces the caller's null with the token of the lock it holds
	private static long filledIn(@Nullable FencingToken fence) {
		return Objects.requireNonNull(fence, "No fencing token: call this through the Spring proxy").value();
	}

}

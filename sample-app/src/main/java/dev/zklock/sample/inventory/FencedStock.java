package dev.zklock.sample.inventory;

import java.time.Instant;

import org.springframework.stereotype.Component;

/**
 * The fenced read-modify-write of one stock row by a holder of its lock: claim the
 * row with the lock's fencing token, read it, then write it only if no newer holder
 * has claimed it since. A holder that lost its lock without noticing cannot write
 * over a newer holder's work.
 */
@Component
class FencedStock {

	private final StockRepository repository;

	private final StallHook stallHook;

	FencedStock(StockRepository repository, StallHook stallHook) {
		this.repository = repository;
		this.stallHook = stallHook;
	}

	/**
	 * Claim the row for our token and read it.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @param token our fencing token
	 * @return the row as claimed
	 * @throws UnknownStockException when there is no such row
	 * @throws FencedWriteRejectedException when a newer holder has claimed it
	 */
	StockLevel claim(String warehouse, String sku, long token) {
		if (!this.repository.claim(warehouse, sku, token)) {
			StockLevel current = this.repository.find(warehouse, sku)
				.orElseThrow(() -> new UnknownStockException(warehouse, sku));
			throw new FencedWriteRejectedException(warehouse, sku, token, current.fence());
		}
		return this.repository.find(warehouse, sku).orElseThrow(() -> new UnknownStockException(warehouse, sku));
	}

	/**
	 * Write a claimed row's new quantity.
	 * @param claimed the row as claimed
	 * @param quantity the new quantity
	 * @param token our fencing token
	 * @return the row as written
	 * @throws FencedWriteRejectedException when a newer holder has claimed it since
	 */
	StockLevel write(StockLevel claimed, int quantity, long token) {
		this.stallHook.beforeWrite(claimed.warehouse(), claimed.sku(), token);
		if (!this.repository.write(claimed.warehouse(), claimed.sku(), quantity, token)) {
			long fence = this.repository.find(claimed.warehouse(), claimed.sku()).map(StockLevel::fence).orElse(-1L);
			throw new FencedWriteRejectedException(claimed.warehouse(), claimed.sku(), token, fence);
		}
		return new StockLevel(claimed.warehouse(), claimed.sku(), quantity, token, Instant.now());
	}

}

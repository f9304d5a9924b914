package dev.zklock.sample.inventory;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

import dev.zklock.sample.SampleProperties;

/**
 * A test-only pause point inside the stock lock, right before the fenced write: when
 * {@code sample.testing.stall-sku} names the SKU being written, the write waits
 * {@code sample.testing.stall-for}. A test waits for the log line and then freezes
 * the process (SIGSTOP) while it holds the lock. Does nothing when the property is
 * not set.
 */
@Component
public class StallHook {

	/**
	 * The start of the line logged when a write stalls.
	 */
	public static final String MARKER = "Test hook: stalling";

	private static final Logger logger = LoggerFactory.getLogger(StallHook.class);

	private final @Nullable String sku;

	private final Duration stallFor;

	StallHook(SampleProperties properties) {
		this.sku = properties.getTesting().getStallSku();
		this.stallFor = properties.getTesting().getStallFor();
	}

	void beforeWrite(String warehouse, String sku, long token) {
		if (this.sku == null || !this.sku.equals(sku)) {
			return;
		}
		logger.warn("{} the write of stock '{}' (lock 'stock', fencing token {}) for {}", MARKER,
				StockLevel.lockKey(warehouse, sku), token, this.stallFor);
		try {
			Thread.sleep(this.stallFor.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}

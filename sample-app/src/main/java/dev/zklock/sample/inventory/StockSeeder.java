package dev.zklock.sample.inventory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Component;

/**
 * Adds a few products to an empty database, so that the sample can be tried at once.
 * Rows that exist are left alone, also when another instance adds them at the same
 * time.
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.stock.seed", matchIfMissing = true)
class StockSeeder implements ApplicationRunner {

	private static final Logger logger = LoggerFactory.getLogger(StockSeeder.class);

	private final StockRepository repository;

	StockSeeder(StockRepository repository) {
		this.repository = repository;
	}

	@Override
	public void run(ApplicationArguments args) {
		int added = 0;
		for (String warehouse : new String[] { "berlin", "lisbon" }) {
			added += add(warehouse, "kettle", 25) + add(warehouse, "teapot", 10) + add(warehouse, "mug", 100);
		}
		if (added > 0) {
			logger.info("Added {} stock rows to the empty database", added);
		}
	}

	private int add(String warehouse, String sku, int quantity) {
		return this.repository.insert(warehouse, sku, quantity, 0) ? 1 : 0;
	}

}

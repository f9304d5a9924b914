package dev.zklock.sample.inventory;

import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The stock API.
 */
@RestController
@RequestMapping("/stock")
class StockController {

	private final StockService stock;

	StockController(StockService stock) {
		this.stock = stock;
	}

	@GetMapping
	List<StockLevel> list() {
		return this.stock.list();
	}

	@GetMapping("/{warehouse}/{sku}")
	StockLevel get(@PathVariable String warehouse, @PathVariable String sku) {
		return this.stock.get(warehouse, sku);
	}

	@PutMapping("/{warehouse}/{sku}")
	StockLevel set(@PathVariable String warehouse, @PathVariable String sku, @RequestBody Quantity body) {
		if (body.quantity() < 0) {
			throw new IllegalArgumentException("'quantity' must not be negative, got " + body.quantity());
		}
		return this.stock.set(warehouse, sku, body.quantity());
	}

	@PostMapping("/transfers")
	StockTransfer transfer(@RequestBody TransferRequest request) {
		if (request.sku() == null || request.from() == null || request.to() == null || request.quantity() < 1) {
			throw new IllegalArgumentException("A transfer needs 'sku', 'from', 'to' and a 'quantity' of at least 1, "
					+ "got " + request);
		}
		return this.stock.transfer(request.sku(), request.from(), request.to(), request.quantity());
	}

	/**
	 * A transfer between warehouses.
	 *
	 * @param sku the product
	 * @param from the source warehouse
	 * @param to the target warehouse
	 * @param quantity the units to move
	 */
	record TransferRequest(String sku, String from, String to, int quantity) {

	}

	/**
	 * The units on hand.
	 *
	 * @param quantity the units
	 */
	record Quantity(int quantity) {

	}

}

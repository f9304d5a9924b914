package dev.zklock.sample.orders;

import java.net.URI;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The orders API.
 */
@RestController
@RequestMapping("/orders")
class OrderController {

	private final OrderService orders;

	OrderController(OrderService orders) {
		this.orders = orders;
	}

	@PostMapping
	ResponseEntity<Order> place(@RequestBody NewOrder request) {
		Order order = this.orders.place(request);
		if (order.status() == OrderStatus.RESERVED) {
			return ResponseEntity.created(URI.create("/orders/" + order.id())).body(order);
		}
		return ResponseEntity.status(HttpStatus.CONFLICT).body(order);
	}

	@GetMapping("/{id}")
	Order get(@PathVariable long id) {
		return this.orders.find(id);
	}

	@GetMapping
	List<Order> latest(@RequestParam(required = false) @Nullable String sku, @RequestParam(defaultValue = "20") int limit) {
		return this.orders.latest(sku, Math.max(1, Math.min(limit, 1000)));
	}

	@GetMapping("/summary")
	OrderSummary summary(@RequestParam String sku) {
		return this.orders.summarize(sku);
	}

	@PatchMapping("/{id}")
	Order update(@PathVariable long id, @RequestBody QuantityChange change) {
		return this.orders.update(new OrderUpdate(id, change.quantity()));
	}

	@PostMapping("/{id}/payment")
	Order pay(@PathVariable long id) {
		return this.orders.pay(id);
	}

	@PostMapping("/{id}/cancellation")
	Order cancel(@PathVariable long id) {
		return this.orders.cancel(id);
	}

	/**
	 * A new quantity.
	 *
	 * @param quantity the quantity
	 */
	record QuantityChange(int quantity) {

	}

}

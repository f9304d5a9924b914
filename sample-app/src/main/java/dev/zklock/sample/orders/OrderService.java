package dev.zklock.sample.orders;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Service;

import dev.zklock.LockTimeoutException;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.sample.InstanceName;
import dev.zklock.sample.inventory.FencedWriteRejectedException;
import dev.zklock.sample.inventory.StockService;
import dev.zklock.sample.inventory.StockUpdate;
import dev.zklock.sample.payment.PaymentGateway;
import dev.zklock.sample.payment.PaymentResult;

/**
 * Places and changes orders. Changes of an order hold its {@code order} lock in
 * {@link LockMode#WRITE} mode; reads hold it in {@link LockMode#READ} mode, so they
 * never see an order half-changed and do not block each other.
 */
@Service
public class OrderService {

	/**
	 * The name of the lock of an order.
	 */
	public static final String LOCK = "order";

	private static final long UNIT_PRICE_CENTS = 1999;

	private static final Logger logger = LoggerFactory.getLogger(OrderService.class);

	private final OrderRepository repository;

	private final StockService stock;

	private final PaymentGateway paymentGateway;

	private final InstanceName instance;

	OrderService(OrderRepository repository, StockService stock, PaymentGateway paymentGateway, InstanceName instance) {
		this.repository = repository;
		this.stock = stock;
		this.paymentGateway = paymentGateway;
		this.instance = instance;
	}

	/**
	 * Place an order and reserve its stock. The order is stored first, so that every
	 * request leaves an order behind: {@link OrderStatus#RESERVED} when the stock was
	 * taken, {@link OrderStatus#REJECTED} with a reason otherwise.
	 * @param request the request
	 * @return the order
	 * @throws LockTimeoutException when the stock stayed busy; the order is rejected
	 */
	public Order place(NewOrder request) {
		Order order = this.repository.insert(request, OrderStatus.PENDING, this.instance.get());
		try {
			StockUpdate update = this.stock.take(order.warehouse(), order.sku(), order.quantity(), null);
			if (update.applied()) {
				return this.repository.setStatus(order, OrderStatus.RESERVED, null);
			}
			return this.repository.setStatus(order, OrderStatus.REJECTED,
					"Out of stock: " + update.level().quantity() + " left");
		}
		catch (FencedWriteRejectedException ex) {
			logger.warn("Order {} rejected: {}", order.id(), ex.getMessage());
			return this.repository.setStatus(order, OrderStatus.REJECTED, "Lock lost: the fenced stock write of token "
					+ ex.getToken() + " was rejected");
		}
		catch (RuntimeException ex) {
			this.repository.setStatus(order, OrderStatus.REJECTED, abbreviate(ex.toString()));
			throw ex;
		}
	}

	/**
	 * Read an order while no one changes it.
	 * @param id the order id
	 * @return the order
	 */
	@DistributedLock(name = LOCK, key = "#id", mode = LockMode.READ, timeout = "2s")
	public Order find(long id) {
		return this.repository.find(id).orElseThrow(() -> new UnknownOrderException(id));
	}

	/**
	 * The latest orders.
	 * @param sku the product, or {@code null} for all
	 * @param limit the largest number
	 * @return the orders, newest first, read without locks
	 */
	public List<Order> latest(@Nullable String sku, int limit) {
		return this.repository.findLatest(sku, limit);
	}

	/**
	 * Count the orders of a product per status.
	 * @param sku the product
	 * @return the summary
	 */
	public OrderSummary summarize(String sku) {
		return this.repository.summarize(sku);
	}

	/**
	 * Change the quantity of a reserved order, taking more stock or putting some
	 * back.
	 * @param order the change
	 * @return the order as changed
	 */
	@DistributedLock(name = LOCK, key = "#order.id", mode = LockMode.WRITE, timeout = "5s")
	public Order update(OrderUpdate order) {
		Order current = reserved(order.id(), "change the quantity of");
		int more = order.quantity() - current.quantity();
		if (more > 0) {
			StockUpdate update = this.stock.take(current.warehouse(), current.sku(), more, null);
			if (!update.applied()) {
				throw new OrderStateException("Cannot add " + more + " units to order " + current.id() + ": only "
						+ update.level().quantity() + " left in stock");
			}
		}
		else if (more < 0) {
			this.stock.putBack(current.warehouse(), current.sku(), -more, null);
		}
		return this.repository.setQuantity(current, order.quantity());
	}

	/**
	 * Pay a reserved order through the payment gateway.
	 * @param id the order id
	 * @return the paid order
	 * @throws PaymentBusyException when the gateway had no free permit
	 */
	@DistributedLock(name = LOCK, key = "#id", mode = LockMode.WRITE, timeout = "5s")
	public Order pay(long id) {
		Order current = reserved(id, "pay");
		PaymentResult result = this.paymentGateway.charge(id, current.quantity() * UNIT_PRICE_CENTS);
		if (!result.approved()) {
			throw new PaymentBusyException(id, result.message());
		}
		return this.repository.setStatus(current, OrderStatus.PAID, null);
	}

	/**
	 * Cancel a reserved order and put its stock back.
	 * @param id the order id
	 * @return the cancelled order
	 */
	@DistributedLock(name = LOCK, key = "#id", mode = LockMode.WRITE, timeout = "5s")
	public Order cancel(long id) {
		Order current = reserved(id, "cancel");
		this.stock.putBack(current.warehouse(), current.sku(), current.quantity(), null);
		return this.repository.setStatus(current, OrderStatus.CANCELLED, null);
	}

	/**
	 * Expire a reserved order that was placed before the cutoff and put its stock
	 * back. An order that someone is changing right now is skipped, not waited for.
	 * @param id the order id
	 * @param cutoff orders placed before this time expire
	 * @return the expired order, or empty when it was busy, paid or cancelled meanwhile
	 */
	@DistributedLock(name = LOCK, key = "#id", mode = LockMode.WRITE, timeout = "0", onTimeout = OnTimeout.SKIP)
	public Optional<Order> expire(long id, Instant cutoff) {
		Order current = this.repository.find(id).orElseThrow(() -> new UnknownOrderException(id));
		if (current.status() != OrderStatus.RESERVED || !current.createdAt().isBefore(cutoff)) {
			return Optional.empty();
		}
		this.stock.putBack(current.warehouse(), current.sku(), current.quantity(), null);
		return Optional.of(this.repository.setStatus(current, OrderStatus.EXPIRED, "Not paid in time"));
	}

	private Order reserved(long id, String action) {
		Order current = this.repository.find(id).orElseThrow(() -> new UnknownOrderException(id));
		if (current.status() != OrderStatus.RESERVED) {
			throw OrderStateException.notReserved(current, action);
		}
		return current;
	}

	private static String abbreviate(String text) {
		return (text.length() <= 200) ? text : text.substring(0, 197) + "...";
	}

}

package dev.zklock.docs;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import dev.zklock.LockException;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.docs.DocsModel.Order;
import dev.zklock.docs.DocsModel.Orders;
import dev.zklock.docs.DocsModel.Payment;
import dev.zklock.docs.DocsModel.PaymentGateway;
import dev.zklock.docs.DocsModel.Receipt;
import dev.zklock.docs.DocsModel.Stock;

/**
 * The annotation examples of README.md and docs/annotation-and-template.md. Never
 * registered as a bean: it only has to compile.
 */
@Service
class OrderService {

	private final Orders orders;

	private final Stock stock;

	private final PaymentGateway gateway;

	OrderService(Orders orders, Stock stock, PaymentGateway gateway) {
		this.orders = orders;
		this.stock = stock;
		this.gateway = gateway;
	}

	@DistributedLock(key = "#order.id", mode = LockMode.WRITE, timeout = "5s")
	@Transactional
	public Order update(Order order) {
		return this.orders.save(order);
	}

	@DistributedLock(key = "#orderId", mode = LockMode.READ, timeout = "2s")
	public Order find(long orderId) {
		return this.orders.find(orderId);
	}

	// Runs once per round across the instances: the others skip without waiting, and minHold keeps
	// the lock until 50 s after the grant, so an instance whose scheduler fires a little later skips too.
	@Scheduled(fixedDelay = 60_000)
	@DistributedLock(timeout = "0", onTimeout = OnTimeout.SKIP, minHold = "50s")
	public void expireReservations() {
		this.orders.expireUnpaid();
	}

	// Both warehouses are locked together, in sorted order: no deadlock with a reverse transfer.
	@DistributedLock(name = "warehouse", key = "{#from, #to}")
	public void transfer(String from, String to, String sku, int quantity) {
		this.stock.move(from, to, sku, quantity);
	}

	// At most 4 concurrent calls to the payment gateway, cluster-wide.
	@DistributedLock(name = "payment-gateway", mode = LockMode.SEMAPHORE, permits = 4, timeout = "1s",
			fallbackMethod = "paymentBusy")
	public Receipt pay(Payment payment) {
		return this.gateway.charge(payment);
	}

	Receipt paymentBusy(Payment payment, LockException ex) {
		return Receipt.retryLater();
	}

}

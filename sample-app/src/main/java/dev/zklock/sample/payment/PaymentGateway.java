package dev.zklock.sample.payment;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

import dev.zklock.LockException;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;
import dev.zklock.sample.SampleProperties;

/**
 * A stand-in for a slow payment provider whose contract allows at most
 * {@value #PERMITS} concurrent calls from all our instances together. A
 * {@link LockMode#SEMAPHORE} lock hands out that many permits cluster-wide; a caller
 * that gets none within the timeout receives a "busy" answer from
 * {@link #busy(long, long, LockException)} instead.
 */
@Component
public class PaymentGateway {

	/**
	 * The number of concurrent calls the provider allows.
	 */
	public static final int PERMITS = 3;

	private static final Logger logger = LoggerFactory.getLogger(PaymentGateway.class);

	private final Duration latency;

	private final AtomicInteger inFlight = new AtomicInteger();

	PaymentGateway(SampleProperties properties) {
		this.latency = properties.getPayment().getLatency();
	}

	/**
	 * Charge an order.
	 * @param orderId the order
	 * @param amountCents the amount
	 * @return the result
	 */
	@DistributedLock(name = "payment-gateway", mode = LockMode.SEMAPHORE, permits = PERMITS, timeout = "2s",
			fallbackMethod = "busy")
	public PaymentResult charge(long orderId, long amountCents) {
		int calls = this.inFlight.incrementAndGet();
		try {
			logger.info("Charging order {} ({} cents) with a permit of lock 'payment-gateway'; {} call(s) in flight "
					+ "from this instance", orderId, amountCents, calls);
			Thread.sleep(this.latency.toMillis());
			return PaymentResult.approved(UUID.randomUUID().toString());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return PaymentResult.busy("Interrupted while waiting for the payment gateway");
		}
		finally {
			this.inFlight.decrementAndGet();
		}
	}

	PaymentResult busy(long orderId, long amountCents, LockException ex) {
		logger.info("Payment gateway busy: no permit of lock 'payment-gateway' for order {} ({})", orderId,
				ex.getMessage());
		return PaymentResult.busy("All " + PERMITS + " payment gateway permits are in use; retry in a moment");
	}

}

package dev.zklock.sample;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the sample service.
 */
@ConfigurationProperties("sample")
public class SampleProperties {

	private final Stock stock = new Stock();

	private final Orders orders = new Orders();

	private final Payment payment = new Payment();

	private final Testing testing = new Testing();

	public Stock getStock() {
		return this.stock;
	}

	public Orders getOrders() {
		return this.orders;
	}

	public Payment getPayment() {
		return this.payment;
	}

	public Testing getTesting() {
		return this.testing;
	}

	/**
	 * Stock settings.
	 */
	public static class Stock {

		/**
		 * Whether to add a few products to an empty database on startup.
		 */
		private boolean seed = true;

		/**
		 * Longest wait for the lock of a stock row.
		 */
		private Duration lockTimeout = Duration.ofSeconds(10);

		public boolean isSeed() {
			return this.seed;
		}

		public void setSeed(boolean seed) {
			this.seed = seed;
		}

		public Duration getLockTimeout() {
			return this.lockTimeout;
		}

		public void setLockTimeout(Duration lockTimeout) {
			this.lockTimeout = lockTimeout;
		}

	}

	/**
	 * Order settings.
	 */
	public static class Orders {

		/**
		 * How long a reserved order may stay unpaid before the expiry job cancels it
		 * and puts its stock back.
		 */
		private Duration paymentWindow = Duration.ofMinutes(15);

		/**
		 * How often each instance tries to run the expiry job; one instance at a time
		 * runs it, the others skip their turn.
		 */
		private Duration expiryInterval = Duration.ofSeconds(30);

		public Duration getPaymentWindow() {
			return this.paymentWindow;
		}

		public void setPaymentWindow(Duration paymentWindow) {
			this.paymentWindow = paymentWindow;
		}

		public Duration getExpiryInterval() {
			return this.expiryInterval;
		}

		public void setExpiryInterval(Duration expiryInterval) {
			this.expiryInterval = expiryInterval;
		}

	}

	/**
	 * Settings of the payment gateway stand-in.
	 */
	public static class Payment {

		/**
		 * How long one call to the payment gateway takes.
		 */
		private Duration latency = Duration.ofMillis(500);

		public Duration getLatency() {
			return this.latency;
		}

		public void setLatency(Duration latency) {
			this.latency = latency;
		}

	}

	/**
	 * Hooks for tests. Leave them unset in a real deployment.
	 */
	public static class Testing {

		/**
		 * SKU whose stock writes stall inside the stock lock, right before the fenced
		 * write, so that a test can pause the process there.
		 */
		private @Nullable String stallSku;

		/**
		 * How long a stock write of the stall SKU stalls.
		 */
		private Duration stallFor = Duration.ofSeconds(3);

		public @Nullable String getStallSku() {
			return this.stallSku;
		}

		public void setStallSku(@Nullable String stallSku) {
			this.stallSku = stallSku;
		}

		public Duration getStallFor() {
			return this.stallFor;
		}

		public void setStallFor(Duration stallFor) {
			this.stallFor = stallFor;
		}

	}

}

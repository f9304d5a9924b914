package dev.zklock.sample.load;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What a load run did and found.
 *
 * @param settings the settings of the run
 * @param succeeded orders answered 201: reserved
 * @param rejected orders answered 409: out of stock, or the stock write was fenced off
 * @param busy orders answered 503: the stock lock was not acquired in time
 * @param failed requests without an answer, or with another status
 * @param perTarget requests and successes per instance
 * @param latencyMicros the latency of each answered request, sorted
 * @param elapsed how long the orders took
 * @param finalStock the units in stock afterwards
 * @param databaseOrders the orders of the product in the database, per status
 * @param databaseUnits the units of those orders, per status
 * @param failures the first few failures
 */
public record LoadReport(LoadSettings settings, int succeeded, int rejected, int busy, int failed,
		Map<URI, TargetCounts> perTarget, long[] latencyMicros, Duration elapsed, int finalStock,
		Map<String, Long> databaseOrders, Map<String, Long> databaseUnits, List<String> failures) {

	/**
	 * The number of orders sent.
	 * @return the number of requests
	 */
	public int requests() {
		return this.settings.orders();
	}

	/**
	 * Whether no unit was sold twice: the units of reserved orders and the units left
	 * add up to the stock at the start, and no more orders succeeded than there were
	 * units.
	 * @return whether there was no oversell
	 */
	public boolean noOversell() {
		return this.finalStock >= 0 && this.succeeded <= this.settings.stock()
				&& units("RESERVED") + this.finalStock == this.settings.stock();
	}

	/**
	 * Whether every request got an answer and left exactly one order behind in the
	 * state its answer said.
	 * @return whether every order is accounted for
	 */
	public boolean everyOrderAccountedFor() {
		long total = this.databaseOrders.values().stream().mapToLong(Long::longValue).sum();
		return this.failed == 0 && total == requests() && orders("RESERVED") == this.succeeded
				&& orders("REJECTED") == this.rejected + this.busy;
	}

	/**
	 * Whether both checks passed.
	 * @return whether the run is consistent
	 */
	public boolean consistent() {
		return noOversell() && everyOrderAccountedFor();
	}

	/**
	 * A latency percentile.
	 * @param percent the percentile, such as 99
	 * @return the latency, zero when nothing was answered
	 */
	public Duration percentile(double percent) {
		if (this.latencyMicros.length == 0) {
			return Duration.ZERO;
		}
		int index = (int) Math.ceil(percent / 100 * this.latencyMicros.length) - 1;
		return Duration.ofNanos(this.latencyMicros[Math.max(0, index)] * 1000);
	}

	/**
	 * The summary, several lines.
	 * @return the text
	 */
	public String summary() {
		double seconds = this.elapsed.toMillis() / 1000.0;
		String targets = this.perTarget.entrySet()
			.stream()
			.map((entry) -> entry.getKey() + " " + entry.getValue().requests() + " sent, "
					+ entry.getValue().succeeded() + " succeeded")
			.collect(Collectors.joining("; "));
		long databaseTotal = this.databaseOrders.values().stream().mapToLong(Long::longValue).sum();
		return String.join("\n", "Summary of " + requests() + " orders of 1 unit of " + this.settings.warehouse() + "/"
				+ this.settings.sku() + " with " + this.settings.stock() + " units in stock:",
				line("requests", requests() + " in " + format("%.2f s (%.0f/s), %d in flight at most", seconds,
						requests() / Math.max(seconds, 0.001), Math.min(this.settings.concurrency(), requests()))),
				line("succeeded", this.succeeded + " (201, stock reserved)"),
				line("rejected", this.rejected + " (409, out of stock or stock write fenced off)"),
				line("busy", this.busy + " (503, stock lock not acquired in time)"),
				line("failed", this.failed + " (no answer or another status)"),
				line("per instance", targets),
				line("latency", "p50 " + millis(percentile(50)) + ", p90 " + millis(percentile(90)) + ", p99 "
						+ millis(percentile(99)) + ", max " + millis(percentile(100))),
				line("final stock", this.finalStock + " of " + this.settings.stock()),
				line("database", databaseTotal + " orders " + this.databaseOrders + ", units " + this.databaseUnits),
				line("no oversell", (noOversell() ? "YES" : "NO") + ": " + units("RESERVED")
						+ " units reserved + " + this.finalStock + " left = "
						+ (units("RESERVED") + this.finalStock) + ", stock at the start " + this.settings.stock()),
				line("all accounted", (everyOrderAccountedFor() ? "YES" : "NO") + ": " + requests() + " requests, "
						+ databaseTotal + " orders in the database; " + this.succeeded + " succeeded, "
						+ orders("RESERVED") + " RESERVED; " + (this.rejected + this.busy) + " rejected or busy, "
						+ orders("REJECTED") + " REJECTED; " + this.failed + " failed"))
				+ (this.failures.isEmpty() ? "" : "\nFirst failures:\n  " + String.join("\n  ", this.failures));
	}

	private long orders(String status) {
		return this.databaseOrders.getOrDefault(status, 0L);
	}

	private long units(String status) {
		return this.databaseUnits.getOrDefault(status, 0L);
	}

	private static String line(String label, String value) {
		return format("  %-14s %s", label, value);
	}

	private static String millis(Duration duration) {
		return duration.toMillis() + " ms";
	}

	private static String format(String format, Object... args) {
		return String.format(Locale.ROOT, format, args);
	}

	/**
	 * Requests and successes of one instance.
	 *
	 * @param requests the orders sent to it
	 * @param succeeded the orders it reserved
	 */
	public record TargetCounts(int requests, int succeeded) {

	}

}

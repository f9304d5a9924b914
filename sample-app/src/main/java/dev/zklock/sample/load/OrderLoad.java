package dev.zklock.sample.load;

import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The load script: places many concurrent orders of one unit on a product with
 * limited stock, spread over several sample instances, logs a progress line every
 * second and then a summary, and checks that nothing was oversold and that every
 * order is accounted for.
 * <p>
 * Run it with {@code ./mvnw -pl sample-app spring-boot:run -Pload}, optionally with
 * {@code -Dspring-boot.run.arguments="http://127.0.0.1:8080 --orders=500 --stock=100"}.
 */
public final class OrderLoad {

	private static final int MAX_FAILURES_SHOWN = 5;

	private final Logger logger = LoggerFactory.getLogger(OrderLoad.class);

	private final LoadSettings settings;

	private OrderLoad(LoadSettings settings) {
		this.settings = settings;
	}

	/**
	 * Run the load with settings from the command line and exit with 0 when the
	 * checks passed, 1 when they failed and 2 for bad arguments.
	 * @param args base URIs and options, see {@link LoadSettings#parse(String...)}
	 */
	public static void main(String[] args) {
		if (System.getProperty("logback.configurationFile") == null) {
			System.setProperty("logback.configurationFile", "dev/zklock/sample/load/logback-load.xml");
		}
		Logger logger = LoggerFactory.getLogger(OrderLoad.class);
		LoadSettings settings;
		try {
			settings = LoadSettings.parse(args);
		}
		catch (IllegalArgumentException ex) {
			logger.error(ex.getMessage());
			System.exit(2);
			return;
		}
		try {
			System.exit(run(settings).consistent() ? 0 : 1);
		}
		catch (RuntimeException ex) {
			logger.error("Load run failed: {}", ex.getMessage());
			System.exit(1);
		}
	}

	/**
	 * Run the load: set the stock, place the orders, read the result back.
	 * @param settings the settings
	 * @return the report, also logged
	 * @throws UncheckedIOException when the first target does not answer
	 */
	public static LoadReport run(LoadSettings settings) {
		return new OrderLoad(settings).run();
	}

	private LoadReport run() {
		HttpClient http = SampleClient.httpClient();
		List<SampleClient> clients = this.settings.targets()
			.stream()
			.map((target) -> new SampleClient(http, target, this.settings.requestTimeout()))
			.toList();
		SampleClient first = clients.get(0);
		first.setStock(this.settings.warehouse(), this.settings.sku(), this.settings.stock()).expect(200);
		this.logger.info("Placing {} orders of 1 unit of {}/{} ({} units in stock) on {}, {} in flight at most",
				this.settings.orders(), this.settings.warehouse(), this.settings.sku(), this.settings.stock(),
				this.settings.targets(), Math.min(this.settings.concurrency(), this.settings.orders()));

		Tally tally = new Tally(this.settings.orders(), clients.size());
		long started = System.nanoTime();
		ExecutorService workers = Executors.newFixedThreadPool(this.settings.concurrency(), daemon("load-"));
		ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor(daemon("load-progress"));
		CountDownLatch go = new CountDownLatch(1);
		for (int i = 0; i < this.settings.orders(); i++) {
			int order = i;
			workers.execute(() -> placeOne(order, clients, tally, go));
		}
		progress.scheduleAtFixedRate(() -> logProgress(tally, started), 1, 1, TimeUnit.SECONDS);
		go.countDown();
		workers.shutdown();
		awaitWorkers(workers);
		progress.shutdownNow();
		Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
		logProgress(tally, started);

		JsonNode stock = first.get("stock/" + this.settings.warehouse() + "/" + this.settings.sku()).expect(200).body();
		JsonNode summary = first.get("orders/summary?sku=" + this.settings.sku()).expect(200).body();
		LoadReport report = new LoadReport(this.settings, tally.succeeded.get(), tally.rejected.get(), tally.busy.get(),
				tally.failed.get(), tally.perTarget(this.settings.targets()), tally.sortedLatencies(), elapsed,
				stock.get("quantity").asInt(), counts(summary.get("orders")), counts(summary.get("units")),
				List.copyOf(tally.failures));
		this.logger.info(report.summary());
		return report;
	}

	private void placeOne(int order, List<SampleClient> clients, Tally tally, CountDownLatch go) {
		int target = order % clients.size();
		try {
			go.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return;
		}
		long start = System.nanoTime();
		try {
			SampleClient.Answer answer = clients.get(target)
				.placeOrder(this.settings.warehouse(), this.settings.sku(), 1);
			tally.latencyMicros[order] = (System.nanoTime() - start) / 1000;
			switch (answer.status()) {
				case 201 -> {
					tally.succeeded.incrementAndGet();
					tally.succeededPerTarget.incrementAndGet(target);
				}
				case 409 -> tally.rejected.incrementAndGet();
				case 503 -> tally.busy.incrementAndGet();
				default -> tally.fail("HTTP " + answer.status() + " from " + clients.get(target).base() + ": "
						+ answer.body());
			}
		}
		catch (RuntimeException ex) {
			tally.latencyMicros[order] = -1;
			// List.copyOf in the report rejects null, and some exceptions have no message
			tally.fail(Objects.requireNonNullElse(ex.getMessage(), ex.toString()));
		}
		finally {
			tally.requestsPerTarget.incrementAndGet(target);
			tally.answered.incrementAndGet();
		}
	}

	private void logProgress(Tally tally, long started) {
		int answered = tally.answered.get();
		this.logger.info(String.format("[%5.1f s] %d/%d answered: %d succeeded, %d rejected, %d busy, %d failed; %d "
				+ "in flight", (System.nanoTime() - started) / 1e9, answered, this.settings.orders(),
				tally.succeeded.get(), tally.rejected.get(), tally.busy.get(), tally.failed.get(),
				Math.min(this.settings.concurrency(), this.settings.orders() - answered)));
	}

	private void awaitWorkers(ExecutorService workers) {
		long rounds = (this.settings.orders() + this.settings.concurrency() - 1) / this.settings.concurrency();
		Duration limit = this.settings.requestTimeout().multipliedBy(rounds + 1);
		try {
			if (!workers.awaitTermination(limit.toMillis(), TimeUnit.MILLISECONDS)) {
				workers.shutdownNow();
				throw new IllegalStateException("The orders did not finish within " + limit);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			workers.shutdownNow();
			throw new IllegalStateException("Interrupted while the orders ran", ex);
		}
	}

	private static Map<String, Long> counts(JsonNode node) {
		Map<String, Long> counts = new LinkedHashMap<>();
		if (node != null) {
			node.properties().forEach((entry) -> counts.put(entry.getKey(), entry.getValue().asLong()));
		}
		return counts;
	}

	private static ThreadFactory daemon(String prefix) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * Counters shared by the worker threads.
	 */
	private static final class Tally {

		final AtomicInteger succeeded = new AtomicInteger();

		final AtomicInteger rejected = new AtomicInteger();

		final AtomicInteger busy = new AtomicInteger();

		final AtomicInteger failed = new AtomicInteger();

		final AtomicInteger answered = new AtomicInteger();

		final AtomicIntegerArray requestsPerTarget;

		final AtomicIntegerArray succeededPerTarget;

		final long[] latencyMicros;

		final List<String> failures = new CopyOnWriteArrayList<>();

		Tally(int orders, int targets) {
			this.latencyMicros = new long[orders];
			Arrays.fill(this.latencyMicros, -1);
			this.requestsPerTarget = new AtomicIntegerArray(targets);
			this.succeededPerTarget = new AtomicIntegerArray(targets);
		}

		void fail(String message) {
			if (this.failed.incrementAndGet() <= MAX_FAILURES_SHOWN) {
				this.failures.add(message);
			}
		}

		Map<URI, LoadReport.TargetCounts> perTarget(List<URI> targets) {
			Map<URI, LoadReport.TargetCounts> counts = new LinkedHashMap<>();
			for (int i = 0; i < targets.size(); i++) {
				counts.put(targets.get(i),
						new LoadReport.TargetCounts(this.requestsPerTarget.get(i), this.succeededPerTarget.get(i)));
			}
			return counts;
		}

		long[] sortedLatencies() {
			List<Long> answered = new ArrayList<>();
			for (long latency : this.latencyMicros) {
				if (latency >= 0) {
					answered.add(latency);
				}
			}
			long[] sorted = answered.stream().mapToLong(Long::longValue).toArray();
			Arrays.sort(sorted);
			return sorted;
		}

	}

}

package dev.zklock.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.LockPaths;
import dev.zklock.testsupport.LoopbackFirewall;
import dev.zklock.testsupport.ZooKeeperEnsemble;
import dev.zklock.testsupport.ZooKeeperProxy;

import static org.awaitility.Awaitility.await;

/**
 * What the fault-injection scenarios share: a 3-member ensemble with a 500 ms tick,
 * the {@link ProtectedResource}, worker processes (directly connected or behind a
 * {@link ZooKeeperProxy}), an observer client that counts lock nodes, and a summary
 * file. Logs, the ensemble members' too, are kept under
 * {@code target/fault-injection/<time>/}.
 */
final class FaultLab implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(FaultLab.class);

	/**
	 * The tick time of the ensemble: sessions of 1 to 10 s are allowed.
	 */
	static final Duration TICK_TIME = Duration.ofMillis(500);

	/**
	 * The workers' session timeout.
	 */
	static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

	static final String BASE_PATH = "/faults";

	static final String LOCK_NAME = "faults";

	private final Path directory;

	private final Path summary;

	private final ZooKeeperEnsemble ensemble;

	private final ProtectedResource resource;

	private final CuratorFramework observer;

	private final Map<String, WorkerProcess> workers = new LinkedHashMap<>();

	private final Map<String, ZooKeeperProxy> proxies = new LinkedHashMap<>();

	private final LoopbackFirewall firewall;

	private FaultLab(Path directory, ZooKeeperEnsemble ensemble, LoopbackFirewall firewall) {
		this.directory = directory;
		this.firewall = firewall;
		this.summary = directory.resolve("summary.txt");
		this.ensemble = ensemble;
		this.resource = new ProtectedResource();
		this.observer = CuratorFrameworkFactory.builder()
			.connectString(ensemble.connectString())
			.sessionTimeoutMs(10_000)
			.retryPolicy(new ExponentialBackoffRetry(100, 10, 1000))
			.build();
		this.observer.start();
	}

	/**
	 * Start the ensemble and the resource.
	 * @param name names the log directory
	 * @return the lab
	 */
	static FaultLab start(String name) {
		return start(name, null);
	}

	/**
	 * Start the ensemble and the resource; with a firewall, every member and worker runs
	 * as a user of its own in it, so that their connections can be cut.
	 * @param name names the log directory
	 * @param firewall the firewall, installed, or {@code null}
	 * @return the lab
	 */
	static FaultLab start(String name, LoopbackFirewall firewall) {
		String time = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
		Path directory;
		try {
			directory = Files.createDirectories(Path.of("target", "fault-injection", name + "-" + time))
				.toAbsolutePath();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create the fault-injection log directory", ex);
		}
		long start = System.nanoTime();
		// the faults kill and freeze processes, never the machine: a written transaction survives in the page
		// cache, so an fsync per commit would only cost time
		ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder()
			.tickTime(TICK_TIME)
			.setting("forceSync", "no")
			.firewall(firewall)
			.start();
		FaultLab lab = new FaultLab(directory, ensemble, firewall);
		lab.report("FAULT setup: ensemble " + ensemble.connectString() + " (tickTime=" + TICK_TIME.toMillis()
				+ "ms, leader member " + ensemble.leader().id() + ") up in " + millisSince(start) + " ms; "
				+ Runtime.getRuntime().availableProcessors() + " cores, load average "
				+ String.format("%.1f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage())
				+ "; logs in " + directory);
		return lab;
	}

	ZooKeeperEnsemble ensemble() {
		return this.ensemble;
	}

	ProtectedResource resource() {
		return this.resource;
	}

	/**
	 * The proxy with the given name in front of the ensemble, started on first use and
	 * closed with the lab.
	 * @param name its name
	 * @return the proxy
	 */
	ZooKeeperProxy proxy(String name) {
		return this.proxies.computeIfAbsent(name, (key) -> ZooKeeperProxy.start(key, this.ensemble));
	}

	/**
	 * The workers with the given specs: those still running from an earlier scenario,
	 * and the others launched all at once. Waits until each is ready.
	 * @param specs the workers
	 * @return the workers, by id, in the order of the specs
	 */
	Map<String, WorkerProcess> workers(List<WorkerSpec> specs) {
		long start = System.nanoTime();
		Map<String, WorkerProcess> launched = new LinkedHashMap<>();
		for (WorkerSpec spec : specs) {
			WorkerProcess running = this.workers.get(spec.id());
			if (running != null && running.isAlive()) {
				continue;
			}
			Map<String, String> settings = new LinkedHashMap<>();
			settings.put("session-timeout", SESSION_TIMEOUT.toMillis() + "ms");
			settings.put("base-path", BASE_PATH);
			settings.putAll(spec.settings());
			String connectString = (spec.connectString() != null) ? spec.connectString()
					: (spec.proxy() != null) ? spec.proxy().connectString() : this.ensemble.connectString();
			int uid = (this.firewall != null) ? workerUid(spec.id()) : -1;
			WorkerProcess worker = WorkerProcess.launch(spec.id(), this.directory, connectString,
					"checker:" + this.resource.address(), settings, uid);
			launched.put(spec.id(), worker);
			this.workers.put(spec.id(), worker);
		}
		if (!launched.isEmpty()) {
			List<Long> startMillis = launched.values()
				.stream()
				.map((worker) -> worker.awaitReady().number("startMs"))
				.toList();
			report("FAULT setup: " + launched.size() + " worker JVMs " + launched.keySet() + " ready in "
					+ millisSince(start) + " ms (application start " + startMillis + " ms)");
		}
		Map<String, WorkerProcess> workers = new LinkedHashMap<>();
		specs.forEach((spec) -> workers.put(spec.id(), this.workers.get(spec.id())));
		return workers;
	}

	/**
	 * The user a worker runs as in the lab's firewall.
	 * @param id the worker's id
	 * @return the user id
	 */
	int workerUid(String id) {
		if (this.firewall == null) {
			throw new IllegalStateException("The lab runs without a firewall; start it with one to cut worker " + id);
		}
		return this.firewall.uid("worker " + id);
	}

	/**
	 * The ZooKeeper path of the lock on a key.
	 * @param key the key
	 * @return the path
	 */
	static String lockPath(String key) {
		return BASE_PATH + "/" + LOCK_NAME + "/" + LockPaths.encode(key);
	}

	/**
	 * The number of lock nodes under a key's lock: holders and waiters.
	 * @param key the key
	 * @return the count, 0 when the lock's node does not exist
	 */
	int lockNodes(String key) {
		try {
			return this.observer.getChildren().forPath(lockPath(key)).size();
		}
		catch (KeeperException.NoNodeException ex) {
			return 0;
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not list " + lockPath(key), ex);
		}
	}

	/**
	 * Wait until a key's lock has a number of nodes.
	 * @param key the key
	 * @param count the count
	 * @param timeout the longest wait
	 * @return the milliseconds it took
	 */
	long awaitLockNodes(String key, int count, Duration timeout) {
		long start = System.nanoTime();
		await("lock nodes of " + key + " to be " + count).atMost(timeout)
			.pollInterval(Duration.ofMillis(10))
			.until(() -> lockNodes(key) == count);
		return millisSince(start);
	}

	/**
	 * Connect the observer, which the scenarios use between faults.
	 */
	void awaitObserver() {
		try {
			if (!this.observer.blockUntilConnected(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("The observer did not connect to " + this.ensemble.connectString());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Start every member that is not running and wait for a quorum.
	 */
	void makeWhole() {
		if (this.firewall != null) {
			this.firewall.heal();
		}
		for (ZooKeeperEnsemble.Member member : this.ensemble.members()) {
			if (member.isPaused()) {
				member.resume();
			}
			member.start();
		}
		this.ensemble.awaitQuorum();
		this.proxies.values().forEach(ZooKeeperProxy::pass);
	}

	/**
	 * Log a line and add it to the summary file.
	 * @param line the line
	 */
	void report(String line) {
		logger.info(line);
		try {
			Files.writeString(this.summary, line + System.lineSeparator(), StandardCharsets.UTF_8,
					StandardOpenOption.CREATE, StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			logger.warn("Could not write {}", this.summary, ex);
		}
	}

	/**
	 * Copy the ensemble members' logs, as they are now, next to the workers' logs.
	 * @return the copies
	 */
	List<Path> keepEnsembleLogs() {
		return this.ensemble.keepLogs(this.directory);
	}

	@Override
	public void close() {
		this.workers.values().forEach(WorkerProcess::close);
		this.proxies.values().forEach(ZooKeeperProxy::close);
		this.observer.close();
		this.resource.close();
		// the ensemble deletes its members' directories; their logs stay with the workers'
		try {
			keepEnsembleLogs();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not keep the ensemble members' logs", ex);
		}
		this.ensemble.close();
	}

	static long millisSince(long startNanos) {
		return (System.nanoTime() - startNanos) / 1_000_000;
	}

	/**
	 * A worker to launch.
	 *
	 * @param id its id
	 * @param proxy the proxy it connects through, {@code null} to connect directly
	 * @param settings further worker arguments
	 * @param connectString the members it connects to, {@code null} for the proxy or
	 * every member
	 */
	record WorkerSpec(String id, ZooKeeperProxy proxy, Map<String, String> settings, String connectString) {

		WorkerSpec(String id, ZooKeeperProxy proxy, Map<String, String> settings) {
			this(id, proxy, settings, null);
		}

		static WorkerSpec direct(String id) {
			return new WorkerSpec(id, null, Map.of());
		}

		static WorkerSpec connectedTo(String id, String connectString) {
			return new WorkerSpec(id, null, Map.of(), connectString);
		}

	}

}

package dev.zklock.faults;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.LockMode;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.LocalTenure;
import dev.zklock.LockManager;
import dev.zklock.LockState;
import dev.zklock.testsupport.ParentWatchdog;

/**
 * Main class of a worker process: a Spring Boot application with zk-lock's
 * auto-configuration that takes locks through {@link LockTemplate} on commands read
 * from standard input, and reports what happened as events on standard output (lines
 * that start with {@value WorkerEvents#PREFIX}). Launched by {@link WorkerProcess}
 * through {@link ParentWatchdog}.
 * <p>
 * Arguments, each {@code --name=value}: {@code id}, {@code connect} (the ZooKeeper
 * connection string), {@code resource} (see {@link ResourceClient#connect(String)}),
 * and optional {@code session-timeout}, {@code connection-loss-policy},
 * {@code base-path}. Commands, one a line, each {@code verb name=value...}:
 * <ul>
 * <li>{@code load}: threads taking the lock over and over ({@link WorkerLoad});</li>
 * <li>{@code stop}: end an endless load;</li>
 * <li>{@code hold} and {@code release}, {@code pause} and {@code go}, {@code once}:
 * single critical sections the test steps through ({@link SteppedSections});</li>
 * <li>{@code session}, {@code registry}, {@code dump}: report the session id, the
 * lock registry's counts, the threads;</li>
 * <li>{@code handoffs}: report the local hand-off's counts (passes, grants through
 * ZooKeeper, tenures now, and how many of them know that another process waits); {@code limits maxPasses=N maxTimeMs=M}: bound the tenures
 * ({@link CuratorLockManager#setLocalHandoffLimits(int, Duration)});</li>
 * <li>{@code exit}: close the application and exit.</li>
 * </ul>
 * Every locking command takes {@code handoff=true} to lock with local hand-off
 * ({@link LockRequest.Builder#localHandoff(boolean)}): its threads then queue in this
 * JVM behind one node per key and pass the lock among themselves, and their sections
 * tell the resource that they may share a tenure's token.
 */
public final class LockWorker {

	private final CuratorFramework client;

	private final CuratorLockManager lockManager;

	private final WorkerSettings settings;

	private final Map<String, WorkerLoad> loads = new ConcurrentHashMap<>();

	private final Map<String, CountDownLatch> signals = new ConcurrentHashMap<>();

	private LockWorker(CuratorFramework client, CuratorLockManager lockManager, WorkerSettings settings) {
		this.client = client;
		this.lockManager = lockManager;
		this.settings = settings;
	}

	/**
	 * Start the application, then run commands until {@code exit}.
	 * @param args the arguments
	 * @throws Exception when the worker cannot start
	 */
	public static void main(String[] args) throws Exception {
		Map<String, String> arguments = parse(args, 0);
		long start = System.nanoTime();
		ConfigurableApplicationContext context = new SpringApplicationBuilder(WorkerConfiguration.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.properties(springProperties(arguments))
			.run();
		CuratorFramework client = context.getBean(CuratorFramework.class);
		CuratorLockManager lockManager = (CuratorLockManager) context.getBean(LockManager.class);
		WorkerSettings settings = new WorkerSettings(require(arguments, "id"), context.getBean(LockTemplate.class),
				require(arguments, "resource"));
		LockWorker worker = new LockWorker(client, lockManager, settings);
		client.getConnectionStateListenable()
			.addListener((source, state) -> WorkerEvents.emit("connection", "id", settings.id(), "state", state));
		WorkerEvents.emit("ready", "id", settings.id(), "session", worker.session(), "startMs",
				(System.nanoTime() - start) / 1_000_000);
		worker.run();
		context.close();
		WorkerEvents.emit("exited", "id", settings.id());
		System.exit(0);
	}

	private static Map<String, Object> springProperties(Map<String, String> arguments) {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("zk-lock.connect-string", require(arguments, "connect"));
		properties.put("zk-lock.session-timeout", arguments.getOrDefault("session-timeout", "4s"));
		properties.put("zk-lock.connection-timeout", arguments.getOrDefault("connection-timeout", "15s"));
		properties.put("zk-lock.connection-loss-policy", arguments.getOrDefault("connection-loss-policy", "SUSPENDED"));
		properties.put("zk-lock.base-path", arguments.getOrDefault("base-path", "/faults"));
		// off unless asked for: scenario 3 measures the window that pause detection closes (scenario 11)
		properties.put("zk-lock.pause-detection.enabled", arguments.getOrDefault("pause-detection", "false"));
		properties.put("zk-lock.startup.wait", "30s");
		properties.put("spring.main.register-shutdown-hook", "false");
		properties.put("spring.docker.compose.enabled", "false");
		return properties;
	}

	private void run() throws InterruptedException {
		while (true) {
			String line = ParentWatchdog.commands().take();
			Map<String, String> command = parseCommand(line);
			String verb = command.get("verb");
			if (verb.equals("exit")) {
				this.loads.values().forEach(WorkerLoad::stop);
				return;
			}
			try {
				dispatch(verb, command);
			}
			catch (RuntimeException ex) {
				WorkerEvents.emit("error", "command", line.replace(' ', '_'), "error", ex.toString().replace(' ', '_'));
			}
		}
	}

	private void dispatch(String verb, Map<String, String> command) {
		String id = command.getOrDefault("id", verb);
		switch (verb) {
			case "load" -> {
				WorkerLoad load = new WorkerLoad(this.settings, id, command);
				this.loads.put(id, load);
				load.start();
			}
			case "stop" -> {
				WorkerLoad load = this.loads.remove(id);
				if (load != null) {
					load.stop();
				}
			}
			case "hold", "pause", "once" -> {
				SteppedSections sections = new SteppedSections(this.settings, this::signal, this::session);
				Thread thread = new Thread(() -> sections.run(verb, id, command), id);
				thread.setDaemon(true);
				thread.start();
			}
			case "release", "go" -> signal(verb + ":" + id).countDown();
			case "session" -> WorkerEvents.emit("session", "id", id, "session", session(), "connected",
					this.client.getZookeeperClient().isConnected());
			case "registry" -> WorkerEvents.emit("registry", "id", id, "held", this.lockManager.getRegistry().heldCount(),
					"waiting", this.lockManager.getRegistry().waitingCount(), "inDoubt",
					this.lockManager.getRegistry().count(LockState.IN_DOUBT), "lost",
					this.lockManager.getRegistry().count(LockState.LOST), "releasing",
					this.lockManager.getRegistry().count(LockState.RELEASING));
			case "handoffs" -> WorkerEvents.emit("handoffs", "id", id, "passes",
					this.lockManager.getLocalHandoffs().localHandoffs(), "tenures",
					this.lockManager.getLocalHandoffs().zooKeeperHandoffs(), "open",
					this.lockManager.getLocalHandoffs().tenures().size(), "othersWaiting",
					this.lockManager.getLocalHandoffs().tenures().stream().filter(LocalTenure::othersWaiting).count());
			case "limits" -> {
				this.lockManager.setLocalHandoffLimits(Integer.parseInt(command.get("maxPasses")),
						millis(command, "maxTimeMs", 50));
				WorkerEvents.emit("limits", "id", id);
			}
			case "dump" -> dumpThreads();
			default -> throw new IllegalArgumentException("Unknown command '" + verb + "'");
		}
	}

	private CountDownLatch signal(String name) {
		return this.signals.computeIfAbsent(name, (key) -> new CountDownLatch(1));
	}

	private String session() {
		try {
			return "0x" + Long.toHexString(this.client.getZookeeperClient().getZooKeeper().getSessionId());
		}
		catch (Exception ex) {
			return "unknown";
		}
	}

	private static void dumpThreads() {
		StringBuilder dump = new StringBuilder();
		for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
			dump.append(info);
		}
		System.out.println("Thread dump:\n" + dump);
	}

	static Map<String, String> parseCommand(String line) {
		String[] parts = line.trim().split("\\s+");
		Map<String, String> command = parse(parts, 1);
		command.put("verb", parts[0]);
		return command;
	}

	private static Map<String, String> parse(String[] parts, int from) {
		Map<String, String> values = new HashMap<>();
		for (int i = from; i < parts.length; i++) {
			String part = parts[i].startsWith("--") ? parts[i].substring(2) : parts[i];
			int equals = part.indexOf('=');
			if (equals < 0) {
				throw new IllegalArgumentException("Expected name=value, got '" + parts[i] + "'");
			}
			values.put(part.substring(0, equals), part.substring(equals + 1));
		}
		return values;
	}

	private static String require(Map<String, String> arguments, String name) {
		String value = arguments.get(name);
		if (value == null) {
			throw new IllegalArgumentException("Missing argument --" + name + "=...");
		}
		return value;
	}

	/**
	 * The request of a locking command: {@code name} (lock name, {@code faults} by
	 * default), {@code key}, and {@code handoff=true} for local hand-off.
	 * @param command the command
	 * @param mode the mode
	 * @return the request, without a timeout
	 */
	static LockRequest.Builder request(Map<String, String> command, LockMode mode) {
		return LockRequest.named(command.getOrDefault("name", "faults"))
			.keys(command.get("key"))
			.mode(mode)
			.localHandoff(isHandoff(command));
	}

	/**
	 * Whether a command locks with local hand-off.
	 * @param command the command
	 * @return whether it has {@code handoff=true}
	 */
	static boolean isHandoff(Map<String, String> command) {
		return Boolean.parseBoolean(command.get("handoff"));
	}

	static Duration millis(Map<String, String> command, String name, long defaultMillis) {
		return Duration.ofMillis(Long.parseLong(command.getOrDefault(name, Long.toString(defaultMillis))));
	}

	static boolean await(CountDownLatch latch, Duration timeout) {
		try {
			return latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * The worker's application: zk-lock's auto-configuration and nothing else.
	 */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class })
	static class WorkerConfiguration {

	}

}

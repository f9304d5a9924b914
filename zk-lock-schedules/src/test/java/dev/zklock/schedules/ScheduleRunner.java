package dev.zklock.schedules;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.schedules.History.Outcome;
import dev.zklock.schedules.Schedule.Step;
import dev.zklock.testsupport.InJvmZooKeeper;

/**
 * Runs a {@link Schedule} against a real server: its clients, each behind a proxy,
 * run their workers' steps at their offsets while the faults hit; then everything is
 * healed and the runner waits for the schedule to quiesce and records what is left.
 */
final class ScheduleRunner {

	private static final Logger logger = LoggerFactory.getLogger(ScheduleRunner.class);

	/** How long released and lost locks may take to leave the server and the registries. */
	static final Duration QUIESCENCE = ScheduleClient.SESSION_TIMEOUT.plusSeconds(10);

	private static final AtomicInteger runs = new AtomicInteger();

	private final InJvmZooKeeper server;

	private final boolean trusting;

	/**
	 * A runner.
	 * @param server the server, shared by schedules one after the other
	 * @param trusting whether holders trust their grant until they release: the
	 * checker's unsafe control
	 */
	ScheduleRunner(InJvmZooKeeper server, boolean trusting) {
		this.server = server;
		this.trusting = trusting;
	}

	// how each client is set up before the schedule: as it is, but for the deadlock controls of UnsafeControlTests
	private Consumer<ScheduleClient> clientSetup = (client) -> {
	};

	/**
	 * This runner, each client set up so before the steps begin: the checker's
	 * controls of deadlock detection turn it off, or add victims.
	 * @param setup what to do with each client
	 * @return this runner
	 */
	ScheduleRunner withClients(Consumer<ScheduleClient> setup) {
		this.clientSetup = setup;
		return this;
	}

	/**
	 * A server for schedules: a short tick, so that the clients' short sessions are
	 * allowed.
	 * @return the running server
	 */
	static InJvmZooKeeper startServer() {
		return InJvmZooKeeper.builder().tickTime(Duration.ofMillis(500)).start();
	}

	History run(Schedule schedule) throws Exception {
		// one schedule at a time: another's server restart would be a fault this one did not schedule
		synchronized (ScheduleRunner.class) {
			return runAlone(schedule);
		}
	}

	private History runAlone(Schedule schedule) throws Exception {
		String basePath = "/schedules/run-" + runs.incrementAndGet();
		History history = new History();
		FencedStore store = new FencedStore(history);
		List<ScheduleClient> clients = new ArrayList<>();
		ScheduledExecutorService timers = Executors.newScheduledThreadPool(4);
		ExecutorService workers = Executors.newFixedThreadPool(Schedule.CLIENTS * Schedule.WORKERS);
		try (CuratorFramework admin = ScheduleClient.start(this.server.connectString())) {
			for (int i = 0; i < Schedule.CLIENTS; i++) {
				clients.add(new ScheduleClient(i, List.of(this.server.port()), basePath, history));
			}
			clients.forEach(this.clientSetup);
			FaultInjector faults = new FaultInjector(this.server::restart, clients, history, timers);
			long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
			schedule.faults()
				.forEach((fault) -> timers.schedule(() -> faults.inject(fault),
						start - System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(fault.atMillis()),
						TimeUnit.NANOSECONDS));
			NodeDeleter.schedule(schedule, start, timers, admin, history, basePath);
			ClientSteps steps = new ClientSteps(schedule, start, clients::get, history, store, timers, this.trusting);
			Map<String, Future<?>> running = steps.start((client) -> true, workers);
			awaitWorkers(schedule, running, steps.current, history, start);
			timers.shutdown();
			if (!timers.awaitTermination(FaultInjector.LONG_BLACKHOLE.toMillis() + 15_000, TimeUnit.MILLISECONDS)) {
				history.leftover("a fault still under way after the schedule");
			}
			faults.healAll();
			if (!this.server.isRunning()) {
				this.server.start();
			}
			awaitQuiescence(admin, basePath, () -> registries(clients), history);
		}
		finally {
			timers.shutdownNow();
			workers.shutdownNow();
			clients.forEach(ScheduleClient::close);
		}
		return history;
	}

	private static void awaitWorkers(Schedule schedule, Map<String, Future<?>> running, Map<String, Integer> current,
			History history, long start) throws InterruptedException {
		long deadline = start + TimeUnit.MILLISECONDS.toNanos(Schedule.SPAN_MILLIS) + StepRunner.HANG.toNanos();
		for (Map.Entry<String, Future<?>> worker : running.entrySet()) {
			try {
				worker.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
			catch (TimeoutException ex) {
				Integer id = current.get(worker.getKey());
				history.op(new History.Op((id != null) ? id : -1, -1, "worker " + worker.getKey() + " at "
						+ ((id != null) ? schedule.steps().get(id) : "?"), 0, start, System.nanoTime(), Outcome.HUNG, -1,
						null));
				worker.getValue().cancel(true);
			}
			catch (ExecutionException ex) {
				history.leftover("worker " + worker.getKey() + " failed: " + ex.getCause());
			}
		}
	}

	static void awaitQuiescence(CuratorFramework admin, String basePath, Callable<List<String>> registries,
			History history) {
		try {
			Awaitility.await("no lock node and no registry entry left under " + basePath)
				.atMost(QUIESCENCE)
				.pollInterval(Duration.ofMillis(100))
				.until(() -> leftovers(admin, basePath, registries).isEmpty());
		}
		catch (ConditionTimeoutException ex) {
			try {
				leftovers(admin, basePath, registries).forEach(history::leftover);
			}
			catch (Exception listing) {
				history.leftover("cannot list " + basePath + ": " + listing);
			}
		}
	}

	private static List<String> leftovers(CuratorFramework admin, String basePath,
			Callable<List<String>> registries) throws Exception {
		List<String> left = new ArrayList<>();
		collectEphemeral(admin, basePath, left);
		left.addAll(registries.call());
		return left;
	}

	private static List<String> registries(List<ScheduleClient> clients) {
		List<String> left = new ArrayList<>();
		clients.forEach((client) -> left.addAll(client.registryEntries()));
		return left;
	}

	private static void collectEphemeral(CuratorFramework admin, String path, List<String> found) throws Exception {
		Stat stat = admin.checkExists().forPath(path);
		if (stat == null) {
			return;
		}
		if (stat.getEphemeralOwner() != 0) {
			found.add("node " + path + " of session 0x" + Long.toHexString(stat.getEphemeralOwner()));
			return;
		}
		try {
			for (String child : admin.getChildren().forPath(path)) {
				collectEphemeral(admin, path + "/" + child, found);
			}
		}
		catch (KeeperException.NoNodeException ex) {
			// a container the server has just swept
		}
	}

}

package dev.zklock.schedules;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockRevocationException;
import dev.zklock.core.KeyEncoder;
import dev.zklock.core.LockNodeNames;
import dev.zklock.schedules.History.Outcome;
import dev.zklock.schedules.Schedule.Acquire;
import dev.zklock.schedules.Schedule.DeleteNode;
import dev.zklock.schedules.Schedule.Family;
import dev.zklock.schedules.Schedule.Revoke;
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
				clients.add(new ScheduleClient(i, this.server.port(), basePath, history));
			}
			FaultInjector faults = new FaultInjector(this.server, clients, history, timers);
			long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
			schedule.faults()
				.forEach((fault) -> timers.schedule(() -> faults.inject(fault),
						start - System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(fault.atMillis()),
						TimeUnit.NANOSECONDS));
			// an operator's delete comes at its offset whatever the workers are doing: on a timer, not a worker
			for (int id = 0; id < schedule.steps().size(); id++) {
				Step step = schedule.steps().get(id);
				if (step.op() instanceof DeleteNode) {
					int stepId = id;
					timers.schedule(() -> {
						runStep(stepId, step, start, clients, admin, history, store, timers, basePath);
						return null;
					}, start - System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(step.atMillis()), TimeUnit.NANOSECONDS);
				}
			}
			Map<String, List<Integer>> byWorker = byWorker(schedule);
			Map<String, Future<?>> running = new TreeMap<>();
			Map<String, Integer> current = new ConcurrentHashMap<>();
			byWorker.forEach((worker, steps) -> running.put(worker, workers.submit(() -> {
				for (int id : steps) {
					current.put(worker, id);
					runStep(id, schedule.steps().get(id), start, clients, admin, history, store, timers, basePath);
				}
				current.remove(worker);
				return null;
			})));
			awaitWorkers(schedule, running, current, history, start);
			timers.shutdown();
			if (!timers.awaitTermination(FaultInjector.LONG_BLACKHOLE.toMillis() + 15_000, TimeUnit.MILLISECONDS)) {
				history.leftover("a fault still under way after the schedule");
			}
			faults.healAll();
			awaitQuiescence(admin, basePath, clients, history);
		}
		finally {
			timers.shutdownNow();
			workers.shutdownNow();
			clients.forEach(ScheduleClient::close);
		}
		return history;
	}

	private void runStep(int id, Step step, long start, List<ScheduleClient> clients, CuratorFramework admin,
			History history, FencedStore store, ScheduledExecutorService timers, String basePath)
			throws InterruptedException {
		long at = start + TimeUnit.MILLISECONDS.toNanos(step.atMillis());
		// the schedule's pacing: a step starts at its offset, or once the worker's previous step is done
		for (long left = at - System.nanoTime(); left > 0; left = at - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
		ScheduleClient client = clients.get(step.client());
		if (step.op() instanceof Acquire acquire) {
			new StepRunner(client, history, store, timers, this.trusting).acquire(id, acquire);
		}
		else if (step.op() instanceof DeleteNode delete) {
			deleteNode(delete, admin, history, basePath);
		}
		else if (step.op() instanceof Revoke revoke) {
			long asked = System.nanoTime();
			try {
				client.manager.revoke(revoke.family().lockName, revoke.key(), null, "schedule");
				history.revocation(new History.Revocation(revoke.family().lockName + "/" + revoke.key(), asked,
						System.nanoTime()));
			}
			catch (LockRevocationException ex) {
				// nobody held it, or the holder changed: nothing to revoke
				logger.debug("Revoke of {} under {}: {}", revoke, basePath, ex.getMessage());
			}
		}
	}

	// With the admin client, which no fault reaches: one node, the first holder in queue order (the MUTEX or WRITE
	// holder, the first READ holder, the first lease). That is enough for the holder to have to notice, and a
	// single deletion keeps the history simple
	private static void deleteNode(DeleteNode delete, CuratorFramework admin, History history, String basePath) {
		String lockKey = delete.family().lockName + "/" + delete.key();
		String keyPath = basePath + "/" + KeyEncoder.encode(delete.family().lockName) + "/"
				+ KeyEncoder.encode(delete.key());
		long start = System.nanoTime();
		try {
			List<String> children = admin.getChildren().forPath(keyPath);
			Optional<String> holder = (delete.family() == Family.SEMAPHORE)
					? children.stream()
						.filter((child) -> child.contains(LockNodeNames.LEASE))
						.min(Comparator.comparingLong(LockNodeNames::sequence))
					: LockNodeNames.holders(children).stream().findFirst();
			if (holder.isEmpty()) {
				return;
			}
			String path = keyPath + "/" + holder.get();
			Stat stat = admin.checkExists().forPath(path);
			if (stat == null) {
				return;
			}
			// sequential names are never reused: the node deleted is the one whose zxid was read
			admin.delete().forPath(path);
			history.deletion(new History.Deletion(lockKey, holder.get(), stat.getCzxid(), start, System.nanoTime()));
		}
		catch (KeeperException.NoNodeException ex) {
			// nobody holds it, or the holder released meanwhile: nothing deleted
		}
		catch (Exception ex) {
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			logger.debug("Deletion of a holder's node of {} under {} failed: {}", lockKey, basePath, ex.toString());
		}
	}

	private static Map<String, List<Integer>> byWorker(Schedule schedule) {
		Map<String, List<Integer>> byWorker = new TreeMap<>();
		for (int id = 0; id < schedule.steps().size(); id++) {
			Step step = schedule.steps().get(id);
			if (step.op() instanceof DeleteNode) {
				continue;
			}
			byWorker.computeIfAbsent("c" + step.client() + "/w" + step.worker(), (w) -> new ArrayList<>()).add(id);
		}
		return byWorker;
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

	private static void awaitQuiescence(CuratorFramework admin, String basePath, List<ScheduleClient> clients,
			History history) {
		try {
			Awaitility.await("no lock node and no registry entry left under " + basePath)
				.atMost(QUIESCENCE)
				.pollInterval(Duration.ofMillis(100))
				.until(() -> leftovers(admin, basePath, clients).isEmpty());
		}
		catch (ConditionTimeoutException ex) {
			try {
				leftovers(admin, basePath, clients).forEach(history::leftover);
			}
			catch (Exception listing) {
				history.leftover("cannot list " + basePath + ": " + listing);
			}
		}
	}

	private static List<String> leftovers(CuratorFramework admin, String basePath, List<ScheduleClient> clients)
			throws Exception {
		List<String> left = new ArrayList<>();
		collectEphemeral(admin, basePath, left);
		for (ScheduleClient client : clients) {
			client.manager.getRegistry()
				.snapshot()
				.forEach((lock) -> left.add("c" + client.index + " registry: " + lock));
		}
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

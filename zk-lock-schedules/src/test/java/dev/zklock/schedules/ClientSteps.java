package dev.zklock.schedules;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockRevocationException;
import dev.zklock.schedules.Schedule.Acquire;
import dev.zklock.schedules.Schedule.Revoke;
import dev.zklock.schedules.Schedule.Step;

/**
 * Runs the steps of a schedule's workers, each worker on a thread of its own, at
 * their offsets: in the test JVM for its clients, or in a client process for its
 * own.
 */
final class ClientSteps {

	private static final Logger logger = LoggerFactory.getLogger(ClientSteps.class);

	private final Schedule schedule;

	private final long start;

	private final IntFunction<ScheduleClient> clients;

	private final History history;

	private final FencedStore store;

	private final ScheduledExecutorService timers;

	private final boolean trusting;

	/** The step each worker is at, for the report of a hung one. */
	final Map<String, Integer> current = new ConcurrentHashMap<>();

	ClientSteps(Schedule schedule, long start, IntFunction<ScheduleClient> clients, History history,
			FencedStore store, ScheduledExecutorService timers, boolean trusting) {
		this.schedule = schedule;
		this.start = start;
		this.clients = clients;
		this.history = history;
		this.store = store;
		this.timers = timers;
		this.trusting = trusting;
	}

	/**
	 * Start the workers of the clients given.
	 * @param ofClient which clients' workers to run
	 * @param workers the threads
	 * @return each worker's run, by name
	 */
	Map<String, Future<?>> start(IntPredicate ofClient, ExecutorService workers) {
		Map<String, Future<?>> running = new TreeMap<>();
		byWorker(this.schedule).forEach((worker, steps) -> {
			if (ofClient.test(this.schedule.steps().get(steps.get(0)).client())) {
				running.put(worker, workers.submit(() -> {
					for (int id : steps) {
						this.current.put(worker, id);
						runStep(id, this.schedule.steps().get(id));
					}
					this.current.remove(worker);
					return null;
				}));
			}
		});
		return running;
	}

	private void runStep(int id, Step step) throws InterruptedException {
		long at = this.start + TimeUnit.MILLISECONDS.toNanos(step.atMillis());
		// the schedule's pacing: a step starts at its offset, or once the worker's previous step is done
		for (long left = at - System.nanoTime(); left > 0; left = at - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
		ScheduleClient client = this.clients.apply(step.client());
		if (step.op() instanceof Acquire acquire) {
			new StepRunner(client, this.history, this.store, this.timers, this.trusting).acquire(id, acquire);
		}
		else if (step.op() instanceof Schedule.Nested nested) {
			new NestedRunner(client, this.history, this.store).run(id, nested);
		}
		else if (step.op() instanceof Schedule.Lead lead) {
			new LeaderSteps(client, this.history, this.store, this.trusting).lead(id, lead);
		}
		else if (step.op() instanceof Revoke revoke) {
			long asked = System.nanoTime();
			try {
				client.manager.revoke(revoke.family().lockName, revoke.key(), null, "schedule");
				this.history.revocation(new History.Revocation(revoke.family().lockName + "/" + revoke.key(), asked,
						System.nanoTime()));
			}
			catch (LockRevocationException ex) {
				// nobody held it, or the holder changed: nothing to revoke
				logger.debug("Revoke of {}: {}", revoke, ex.getMessage());
			}
		}
	}

	/**
	 * The steps of each worker, in order.
	 * @param schedule the schedule
	 * @return step numbers by worker name ({@code c0/w1})
	 */
	static Map<String, List<Integer>> byWorker(Schedule schedule) {
		Map<String, List<Integer>> byWorker = new TreeMap<>();
		for (int id = 0; id < schedule.steps().size(); id++) {
			Step step = schedule.steps().get(id);
			if (step.op() instanceof Schedule.DeleteNode) {
				// not a worker's: it comes at its offset, on a timer
				continue;
			}
			byWorker.computeIfAbsent("c" + step.client() + "/w" + step.worker(), (w) -> new ArrayList<>()).add(id);
		}
		return byWorker;
	}

}

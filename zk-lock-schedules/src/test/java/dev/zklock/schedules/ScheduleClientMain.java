package dev.zklock.schedules;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Stream;

import dev.zklock.testsupport.ParentWatchdog;

/**
 * A client of a schedule in a process of its own, for the soak's faults of processes
 * ({@code kill -9}, {@code SIGSTOP}) and of the firewall, which cuts processes apart.
 * It runs its own workers' steps and injects the faults of its connection; every
 * record of its history goes to standard output as it is made ({@code ev ...}), its
 * fenced writes included, which the test JVM's store decides.
 * <p>
 * Arguments: the client's index, the schedule's base path, the members' client ports
 * (comma-separated), and whether its holders trust their grants (the checker's
 * control, see {@link HeldLock}). Commands, one per line: {@code run <order>}, {@code fault <fault>},
 * {@code heal}, {@code registry}, {@code exit}.
 */
public final class ScheduleClientMain {

	/**
	 * What to run: a schedule, of which this client runs its own steps, from a moment
	 * of the monotonic clock, which every process of the machine shares.
	 * @param schedule the schedule
	 * @param start {@link System#nanoTime()} of its start
	 */
	record RunOrder(Schedule schedule, long start) implements Serializable {
	}

	private ScheduleClientMain() {
	}

	/**
	 * Run commands until {@code exit}.
	 * @param args index, base path, member ports
	 * @throws Exception when the client cannot start
	 */
	public static void main(String[] args) throws Exception {
		int index = Integer.parseInt(args[0]);
		boolean trusting = Boolean.parseBoolean(args[3]);
		List<Integer> ports = Stream.of(args[2].split(",")).map(Integer::valueOf).toList();
		History history = new History(ScheduleClientMain::emit);
		FencedStore store = new FencedStore(history) {

			@Override
			synchronized boolean write(int chain, String lockKey, long token) {
				emit(new History.WriteRequest(chain, lockKey, token));
				return true;
			}

		};
		ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
		ExecutorService workers = Executors.newCachedThreadPool();
		try (ScheduleClient client = new ScheduleClient(index, ports, args[1], history)) {
			FaultInjector faults = new FaultInjector(() -> {
				throw new IllegalStateException("A client process restarts no server");
			}, List.of(client), history, timers);
			System.out.println("ready");
			while (true) {
				String[] command = ParentWatchdog.commands().take().split(" ", 2);
				switch (command[0]) {
					case "run" -> run(Serialized.decode(command[1]), index, trusting, client, history, store, timers,
							workers);
					case "fault" -> timers.execute(() -> faults.inject(Serialized.decode(command[1])));
					case "heal" -> faults.healAll();
					case "registry" -> System.out.println("registry " + Serialized.encode(new ArrayList<>(client.registryEntries())));
					case "exit" -> {
						timers.shutdownNow();
						workers.shutdownNow();
						return;
					}
					default -> throw new IllegalArgumentException("Unknown command " + command[0]);
				}
			}
		}
	}

	private static void run(RunOrder order, int index, boolean trusting, ScheduleClient client, History history,
			FencedStore store, ScheduledExecutorService timers, ExecutorService workers) {
		ClientSteps steps = new ClientSteps(order.schedule(), order.start(), (i) -> client, history, store, timers,
				trusting);
		Map<String, Future<?>> running = steps.start((i) -> i == index, workers);
		running.forEach((worker, future) -> workers.execute(() -> {
			try {
				future.get();
			}
			catch (ExecutionException ex) {
				emit("worker " + worker + " failed: " + ex.getCause());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			System.out.println("done " + worker);
		}));
	}

	// one line per record, written whole: the test JVM reads them in order
	private static void emit(Object event) {
		System.out.println("ev " + Serialized.encode((Serializable) event));
	}

}

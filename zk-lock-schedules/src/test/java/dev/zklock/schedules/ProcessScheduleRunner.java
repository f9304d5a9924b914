package dev.zklock.schedules;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.apache.curator.framework.CuratorFramework;

import dev.zklock.schedules.History.Outcome;
import dev.zklock.testsupport.LoopbackFirewall;
import dev.zklock.testsupport.ZooKeeperEnsemble;
import dev.zklock.testsupport.ZooKeeperEnsemble.Member;

/**
 * Runs a {@link Schedule} for the soak: on a three-member ensemble, each client in a
 * process of its own and a user of the firewall, so that every fault kind can hit it:
 * those of {@link FaultInjector} through the client's own proxy, and those of
 * {@link SoakFaults}. Then everything is healed, and the runner waits for the
 * schedule to quiesce, as {@link ScheduleRunner} does.
 */
final class ProcessScheduleRunner implements AutoCloseable {

	private static final AtomicInteger runs = new AtomicInteger();

	private final LoopbackFirewall firewall;

	private final ZooKeeperEnsemble ensemble;

	private final Path directory;

	private final boolean trusting;

	private ProcessScheduleRunner(LoopbackFirewall firewall, ZooKeeperEnsemble ensemble, Path directory,
			boolean trusting) {
		this.firewall = firewall;
		this.ensemble = ensemble;
		this.directory = directory;
		this.trusting = trusting;
	}

	/**
	 * Install the firewall and start the ensemble.
	 * @param directory where the processes log
	 * @param trusting whether holders trust their grants: the checker's control
	 * @return the runner
	 */
	static ProcessScheduleRunner start(Path directory, boolean trusting) {
		String unavailable = LoopbackFirewall.unavailableReason();
		if (unavailable != null) {
			throw new IllegalStateException("The soak's partitions need the loopback firewall, but " + unavailable
					+ "; run the soak as root on Linux with nft and setpriv");
		}
		LoopbackFirewall firewall = LoopbackFirewall.install();
		try {
			Files.createDirectories(directory);
			ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder().firewall(firewall).start();
			return new ProcessScheduleRunner(firewall, ensemble, directory, trusting);
		}
		catch (IOException ex) {
			firewall.close();
			throw new UncheckedIOException(ex);
		}
		catch (RuntimeException ex) {
			firewall.close();
			throw ex;
		}
	}

	/** The firewall's user of a client. */
	static String user(int client) {
		return "schedule client " + client;
	}

	History run(Schedule schedule) throws Exception {
		String basePath = "/schedules/soak-" + runs.incrementAndGet();
		History history = new History();
		FencedStore store = new FencedStore(history);
		List<ClientProcess> clients = new ArrayList<>();
		ScheduledExecutorService timers = Executors.newScheduledThreadPool(4);
		ExecutorService starting = Executors.newFixedThreadPool(Schedule.CLIENTS);
		List<Integer> ports = this.ensemble.members().stream().map(Member::clientPort).toList();
		try (CuratorFramework admin = ScheduleClient.start(this.ensemble.connectString())) {
			Path logs = Files.createDirectories(this.directory.resolve(basePath.substring(basePath.lastIndexOf('/') + 1)));
			for (int i = 0; i < Schedule.CLIENTS; i++) {
				clients.add(new ClientProcess(i, basePath, ports, this.trusting, this.firewall.uid(user(i)), logs, history,
						store));
			}
			List<Future<?>> ready = new ArrayList<>();
			clients.forEach((client) -> ready.add(starting.submit(() -> {
				client.awaitReady();
				return null;
			})));
			for (Future<?> each : ready) {
				each.get();
			}
			SoakFaults faults = new SoakFaults(this.ensemble, this.firewall, clients, history, timers);
			long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
			clients.forEach((client) -> client.run(schedule, start));
			NodeDeleter.schedule(schedule, start, timers, admin, history, basePath);
			schedule.faults()
				.forEach((fault) -> timers.schedule(() -> faults.inject(fault),
						start - System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(fault.atMillis()),
						TimeUnit.NANOSECONDS));
			long deadline = start + TimeUnit.MILLISECONDS.toNanos(Schedule.SPAN_MILLIS) + StepRunner.HANG.toNanos();
			for (ClientProcess client : clients) {
				if (!client.awaitDone(deadline)) {
					history.op(new History.Op(-1, client.index, "a worker of client process " + client.index, 0, start,
							System.nanoTime(), Outcome.HUNG, -1, null));
				}
			}
			timers.shutdown();
			if (!timers.awaitTermination(SoakFaults.PARTITION.toMillis() + 60_000, TimeUnit.MILLISECONDS)) {
				history.leftover("a fault still under way after the schedule");
			}
			// the faults that last run in the client processes, on their own timers: let them end as planned
			long faultsOver = start + TimeUnit.MILLISECONDS.toNanos(schedule.faults()
				.stream()
				.mapToLong(Schedule.FaultStep::atMillis)
				.max()
				.orElse(0) + FaultInjector.LONG_BLACKHOLE.toMillis());
			for (long left = faultsOver - System.nanoTime(); left > 0; left = faultsOver - System.nanoTime()) {
				LockSupport.parkNanos(left);
			}
			this.firewall.heal();
			clients.forEach(ClientProcess::heal);
			this.ensemble.members().forEach(Member::start);
			this.ensemble.awaitQuorum();
			ScheduleRunner.awaitQuiescence(admin, basePath, () -> {
				List<String> left = new ArrayList<>();
				for (ClientProcess client : clients) {
					left.addAll(client.registryEntries());
				}
				return left;
			}, history);
		}
		finally {
			timers.shutdownNow();
			starting.shutdownNow();
			this.firewall.heal();
			clients.forEach(ClientProcess::close);
			clients.forEach(ClientProcess::endKilledHolds);
		}
		return history;
	}

	@Override
	public void close() {
		try {
			this.ensemble.close();
		}
		finally {
			this.firewall.close();
		}
	}

}

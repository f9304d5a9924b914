package dev.zklock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.zklock.faults.FaultLab.WorkerSpec;
import dev.zklock.testsupport.ZooKeeperEnsemble.Member;
import dev.zklock.testsupport.ZooKeeperProxy;

import static dev.zklock.faults.FaultLab.SESSION_TIMEOUT;
import static dev.zklock.faults.FaultLab.millisSince;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A long randomized soak, run with {@code ./mvnw -Psoak verify}: five worker JVMs (two
 * behind proxies, one per loss policy) take one lock over and over while random faults
 * hit every few seconds: leader and follower kills, server pauses, blackholes and
 * resets of a worker's connection (shorter and longer than the session), worker
 * pauses (GC-like, up to three sessions) and worker kills. At the end, with everything
 * healed: the fencing resource accepted no stale write, no update was lost, the count
 * is exact, every worker still gets the lock, and no lock node is left. Duration
 * {@code zk-lock.soak.duration} (20m), seed {@code zk-lock.soak.seed} (random, logged).
 */
@Tag("soak")
class FaultSoakTests {

	private static final String KEY = "soak";

	private final Map<String, Integer> faults = new TreeMap<>();

	private final Map<String, Integer> loadRuns = new TreeMap<>();

	@Test
	void randomFaultsKeepTheLockSafe() throws Exception {
		Duration duration = Duration.parse("PT" + System.getProperty("zk-lock.soak.duration", "20m").toUpperCase());
		long seed = Long.getLong("zk-lock.soak.seed", System.nanoTime());
		Random random = new Random(seed);
		ExecutorService executor = Executors.newCachedThreadPool();
		try (FaultLab lab = FaultLab.start("soak")) {
			ZooKeeperProxy suspendedProxy = lab.proxy("soak-suspended");
			ZooKeeperProxy lostProxy = lab.proxy("soak-lost");
			List<WorkerProcess> workers = new ArrayList<>(lab.workers(List.of(WorkerSpec.direct("w1"),
					WorkerSpec.direct("w2"), WorkerSpec.direct("w3"),
					new WorkerSpec("bs", suspendedProxy, Map.of("connection-loss-policy", "SUSPENDED")),
					new WorkerSpec("bl", lostProxy, Map.of("connection-loss-policy", "LOST"))))
				.values());
			List<ZooKeeperProxy> proxies = List.of(suspendedProxy, lostProxy);
			lab.report("FAULT soak: duration=" + duration + " seed=" + seed);
			workers.forEach(this::startLoad);
			long start = System.nanoTime();
			while (System.nanoTime() - start < duration.toNanos()) {
				Duration pause = Duration.ofMillis(2000 + random.nextInt(8000));
				CompletableFuture.runAsync(() -> {
				}, CompletableFuture.delayedExecutor(pause.toMillis(), TimeUnit.MILLISECONDS, executor)).join();
				injectOne(lab, workers, proxies, random, executor);
			}
			lab.makeWhole();
			for (WorkerProcess worker : workers) {
				if (worker.isPaused()) {
					worker.resume();
				}
				worker.send("stop id=" + loadId(worker));
				worker.await("load-done", loadId(worker), Duration.ofMinutes(2));
			}
			for (WorkerProcess worker : workers) {
				worker.send("once id=soak-final key=" + KEY + " timeoutMs=30000");
				assertThat(worker.await("once-done", "soak-final", Duration.ofMinutes(1)).get("outcome"))
					.isEqualTo("WRITTEN");
			}
			long orphansGone = lab.awaitLockNodes(KEY, 0, SESSION_TIMEOUT.multipliedBy(3));
			ResourceStats stats = lab.resource().stats(KEY);
			lab.report("FAULT soak: duration=" + millisSince(start) + "ms seed=" + seed + " faults=" + this.faults
					+ " grants=" + stats.sections() + " writes=" + stats.writesAccepted() + " count=" + stats.value()
					+ " staleReadsRejected=" + stats.staleReadsRejected() + " staleWritesRejected="
					+ stats.staleRejected() + " staleAccepted=" + stats.staleAccepted() + " lostUpdates="
					+ stats.lostUpdates() + " sectionsWithoutWrite=" + stats.sectionsWithoutWrite() + " overlaps="
					+ stats.overlaps() + " orphans=0 (after " + orphansGone + "ms)");
			assertThat(stats.staleAccepted()).isZero();
			assertThat(stats.lostUpdates()).isZero();
			assertThat(stats.countIsExact()).isTrue();
		}
		finally {
			executor.shutdownNow();
		}
	}

	private void injectOne(FaultLab lab, List<WorkerProcess> workers, List<ZooKeeperProxy> proxies, Random random,
			ExecutorService executor) {
		Duration length = Duration.ofMillis(200 + random.nextInt((int) SESSION_TIMEOUT.toMillis() * 3));
		CompletableFuture<Void> healed = CompletableFuture.completedFuture(null);
		switch (random.nextInt(7)) {
			case 0 -> {
				Member leader = lab.ensemble().leader();
				leader.kill();
				healed = later(executor, length, () -> restart(leader));
				count("leaderKill");
			}
			case 1 -> {
				Member leader = lab.ensemble().leader();
				Member follower = lab.ensemble().members().stream().filter((member) -> member != leader).findAny()
					.orElseThrow();
				follower.kill();
				healed = later(executor, length, () -> restart(follower));
				count("followerKill");
			}
			case 2 -> {
				Member member = lab.ensemble().members().get(random.nextInt(3));
				member.pause();
				healed = later(executor, length, member::resume);
				count("serverPause");
			}
			case 3 -> {
				ZooKeeperProxy proxy = proxies.get(random.nextInt(proxies.size()));
				proxy.blackhole();
				healed = later(executor, length, proxy::pass);
				count("blackhole");
			}
			case 4 -> {
				proxies.get(random.nextInt(proxies.size())).reset();
				count("connectionReset");
			}
			case 5 -> {
				WorkerProcess worker = workers.get(random.nextInt(workers.size()));
				worker.pause();
				healed = later(executor, length, worker::resume);
				count("workerPause");
			}
			default -> {
				WorkerProcess worker = workers.get(random.nextInt(workers.size()));
				worker.kill();
				worker.relaunch();
				startLoad(worker);
				count("workerKill");
			}
		}
		// one fault at a time: let it end before the next one starts
		healed.join();
		lab.ensemble().members().forEach(Member::awaitServing);
	}

	private static void restart(Member member) {
		member.start();
		member.awaitServing();
	}

	private static CompletableFuture<Void> later(ExecutorService executor, Duration delay, Runnable action) {
		return CompletableFuture.runAsync(action,
				CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS, executor));
	}

	private void startLoad(WorkerProcess worker) {
		int run = this.loadRuns.merge(worker.id(), 1, Integer::sum);
		worker.send("load id=" + KEY + "-" + worker.id() + "-" + run + " key=" + KEY
				+ " threads=3 grants=0 sleepMs=1 minTimeoutMs=0 timeoutMs=5000");
	}

	private String loadId(WorkerProcess worker) {
		return KEY + "-" + worker.id() + "-" + this.loadRuns.get(worker.id());
	}

	private void count(String fault) {
		this.faults.merge(fault, 1, Integer::sum);
	}

}

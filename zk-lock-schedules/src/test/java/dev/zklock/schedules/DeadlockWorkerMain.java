package dev.zklock.schedules;

import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;

import dev.zklock.LockDeadlockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.DeadlockDetectionSettings;
import dev.zklock.testsupport.ParentWatchdog;

/**
 * A main class for {@link DeadlockProcessTests}: one lock manager on its own
 * ZooKeeper session with deadlock detection on, driven by lines on standard input,
 * answering on standard output.
 * <ul>
 * <li>{@code nest <round> <outer> <inner> <outerMode> <readInside> <innerMode>
 * <innerTimeoutMs>}: a thread named {@code <round>-<outer>} takes lock
 * {@code <outer>} key {@code <round>} (and READ on it too when
 * {@code readInside}), prints {@code holds <round> <thread>}, and, once told
 * {@code go <round>}, asks for {@code <inner>} key {@code <round>}; with its locks
 * released it prints {@code ended <round> <thread> <outcome>}: {@code acquired},
 * {@code timeout}, {@code deadlock} or {@code error:<exception>}.</li>
 * <li>{@code detection <on|off>}: detection on or off from now.</li>
 * <li>{@code workload <threads> <iterations> <seed> <longHoldMs> <longEvery>}:
 * threads that nest {@code wo} (4 keys) then {@code wi} (2 keys), always in that
 * order, holding the inner lock 2 ms, or {@code longHoldMs} once in
 * {@code longEvery} times; prints
 * {@code workload <deadlocks> <timeouts> <errors> <nested> <maxWaitMs>
 * <waitsPastAfter>}.</li>
 * <li>{@code exit}.</li>
 * </ul>
 * Prints {@code ready} once connected.
 */
public final class DeadlockWorkerMain {

	private static final Duration OUTER_TIMEOUT = Duration.ofSeconds(30);

	private final CuratorLockManager manager;

	private final Duration after;

	private final Map<String, CountDownLatch> goes = new ConcurrentHashMap<>();

	private DeadlockWorkerMain(CuratorLockManager manager, Duration after) {
		this.manager = manager;
		this.after = after;
	}

	/**
	 * Run until {@code exit}.
	 * @param args the connect string, the base path, {@code after} in milliseconds
	 * and the application name
	 * @throws Exception when ZooKeeper cannot be reached
	 */
	public static void main(String[] args) throws Exception {
		CuratorFramework client = ScheduleClient.start(args[0]);
		CuratorLockManager manager = new CuratorLockManager(client, args[1], OUTER_TIMEOUT);
		DeadlockWorkerMain worker = new DeadlockWorkerMain(manager, Duration.ofMillis(Long.parseLong(args[2])));
		worker.detect(true, args[3]);
		System.out.println("ready");
		for (String line = ParentWatchdog.commands().take(); !line.equals("exit");
				line = ParentWatchdog.commands().take()) {
			String[] words = line.split(" ");
			switch (words[0]) {
				case "nest" -> worker.nest(words);
				case "go" -> worker.go(words[1]).countDown();
				case "detection" -> worker.detect(words[1].equals("on"), args[3]);
				case "workload" -> worker.workload(words);
				default -> System.out.println("unknown " + line);
			}
		}
		manager.close();
		client.close();
		System.exit(0);
	}

	private void detect(boolean enabled, String app) {
		this.manager.setDeadlockDetection(new DeadlockDetectionSettings(enabled, this.after, 10, app));
	}

	private CountDownLatch go(String round) {
		return this.goes.computeIfAbsent(round, (ignored) -> new CountDownLatch(1));
	}

	private void nest(String[] words) {
		String round = words[1];
		String thread = round + "-" + words[2];
		LockRequest outer = request(words[2], round, LockMode.valueOf(words[4]), OUTER_TIMEOUT);
		boolean readInside = Boolean.parseBoolean(words[5]);
		LockRequest inner = request(words[3], round, LockMode.valueOf(words[6]),
				Duration.ofMillis(Long.parseLong(words[7])));
		CountDownLatch go = go(round);
		new Thread(() -> {
			String outcome;
			try (LockHandle held = this.manager.acquire(outer);
					LockHandle read = readInside
							? this.manager.acquire(request(words[2], round, LockMode.READ, OUTER_TIMEOUT)) : null) {
				System.out.println("holds " + round + " " + thread);
				go.await();
				outcome = innerOutcome(inner);
			}
			catch (Throwable ex) {
				outcome = "error:" + ex;
			}
			System.out.println("ended " + round + " " + thread + " " + outcome);
		}, thread).start();
	}

	private String innerOutcome(LockRequest inner) {
		try (LockHandle handle = this.manager.acquire(inner)) {
			return handle.isAcquired() ? "acquired" : "timeout";
		}
		catch (LockDeadlockException ex) {
			return "deadlock";
		}
	}

	private static LockRequest request(String name, String key, LockMode mode, Duration timeout) {
		return LockRequest.named(name).keys(key).mode(mode).timeout(timeout).build();
	}

	// Nested waits in one global order, none a cycle: every deadlock reported here is a false positive
	private void workload(String[] words) throws InterruptedException {
		int threads = Integer.parseInt(words[1]);
		int iterations = Integer.parseInt(words[2]);
		long seed = Long.parseLong(words[3]);
		long longHoldMs = Long.parseLong(words[4]);
		int longEvery = Integer.parseInt(words[5]);
		AtomicInteger deadlocks = new AtomicInteger();
		AtomicInteger timeouts = new AtomicInteger();
		AtomicInteger errors = new AtomicInteger();
		AtomicInteger nested = new AtomicInteger();
		AtomicLong maxWaitNanos = new AtomicLong();
		AtomicInteger pastAfter = new AtomicInteger();
		Thread[] running = new Thread[threads];
		for (int t = 0; t < threads; t++) {
			Random random = new Random(seed * 31 + t);
			running[t] = new Thread(() -> {
				for (int i = 0; i < iterations; i++) {
					long start = System.nanoTime();
					try (LockHandle outer = this.manager.acquire(request("wo", "k" + random.nextInt(4), LockMode.MUTEX,
							OUTER_TIMEOUT));
							LockHandle inner = this.manager.acquire(request("wi", "k" + random.nextInt(2),
									LockMode.MUTEX, OUTER_TIMEOUT))) {
						long waited = System.nanoTime() - start;
						maxWaitNanos.accumulateAndGet(waited, Math::max);
						if (waited > this.after.toNanos()) {
							pastAfter.incrementAndGet();
						}
						if (!outer.isAcquired() || !inner.isAcquired()) {
							timeouts.incrementAndGet();
							continue;
						}
						nested.incrementAndGet();
						// the work under both locks: now and then long, so that the waits behind pass `after`
						TimeUnit.MILLISECONDS.sleep((random.nextInt(longEvery) == 0) ? longHoldMs : 2);
					}
					catch (LockDeadlockException ex) {
						deadlocks.incrementAndGet();
					}
					catch (Exception ex) {
						errors.incrementAndGet();
						System.out.println("workload error " + ex);
					}
				}
			}, "workload-" + t);
			running[t].start();
		}
		for (Thread thread : running) {
			thread.join();
		}
		System.out.println("workload " + deadlocks + " " + timeouts + " " + errors + " " + nested + " "
				+ TimeUnit.NANOSECONDS.toMillis(maxWaitNanos.get()) + " " + pastAfter);
	}

}

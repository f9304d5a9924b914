package dev.zklock.faults;

import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.zklock.LockContext;
import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

/**
 * The single critical sections of a {@link LockWorker} that the test steps through,
 * each on a thread of its own named after the command's id:
 * <ul>
 * <li>{@code hold}: acquire, enter and read, emit {@code held}, then watch
 * {@link LockContext#isHeld()} every few milliseconds and emit {@code state} on each
 * change until {@code release}; then write if {@code assertHeld()} passes, leave,
 * release and emit {@code released}.</li>
 * <li>{@code pause}: acquire, enter and read, check {@code assertHeld()}, emit
 * {@code at-pause} and wait for {@code go} (the test freezes the process meanwhile;
 * with {@code watch=true} the thread first notices the end of the freeze itself and
 * checks {@code assertHeld()} at once);
 * then write at once, as a holder that checked before a GC pause would, and wait
 * until {@code assertHeld()} fails (with {@code release=now}: leave and release right
 * after the write, as a holder unaware of the pause would); release and emit
 * {@code pause-done}.</li>
 * <li>{@code once}: acquire (waiting as long as it takes), run a
 * {@link CriticalSection}, release, emit {@code once-done} with the token.</li>
 * </ul>
 * Parameters: {@code key}, {@code name} (lock name), {@code mode} (MUTEX by default),
 * {@code timeoutMs}, {@code handoff}.
 */
final class SteppedSections {

	private static final Duration SIGNAL_TIMEOUT = Duration.ofMinutes(5);

	private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

	private static final Duration DETECTION_TIMEOUT = Duration.ofSeconds(20);

	private final WorkerSettings settings;

	private final Function<String, CountDownLatch> signals;

	private final Supplier<String> session;

	SteppedSections(WorkerSettings settings, Function<String, CountDownLatch> signals, Supplier<String> session) {
		this.settings = settings;
		this.signals = signals;
		this.session = session;
	}

	void run(String verb, String id, Map<String, String> command) {
		String key = command.get("key");
		LockRequest request = LockWorker.request(command, LockMode.valueOf(command.getOrDefault("mode", "MUTEX")))
			.timeout(LockWorker.millis(command, "timeoutMs", 60_000))
			.build();
		long start = System.nanoTime();
		try (ResourceClient resource = ResourceClient.connect(this.settings.resource(), LockWorker.isHandoff(command))) {
			LockHandle handle = this.settings.template().tryAcquire(request);
			if (!handle.isAcquired()) {
				WorkerEvents.emit("not-acquired", "id", id, "waitMs", millisSince(start));
				return;
			}
			long waitMillis = millisSince(start);
			List<Object> result = new ArrayList<>(List.of("id", id));
			try {
				switch (verb) {
					case "hold" -> result.addAll(hold(id, key, resource));
					case "pause" -> result.addAll(pause(id, key, resource, Boolean.parseBoolean(command.get("watch")),
							"now".equals(command.get("release"))));
					default -> result.addAll(List.of("waitMs", waitMillis, "token", handle.fencingToken(), "outcome",
							CriticalSection.run(resource, key, true, 0)));
				}
			}
			finally {
				result.addAll(release(handle));
			}
			WorkerEvents.emit(verb.equals("hold") ? "released" : verb + "-done", result.toArray());
		}
		catch (LockException | IllegalStateException | UncheckedIOException ex) {
			WorkerEvents.emit("error", "id", id, "error", ex.toString().replace(' ', '_'));
		}
	}

	private static List<Object> release(LockHandle handle) {
		try {
			handle.close();
			return List.of("releaseError", "none");
		}
		catch (LockException ex) {
			return List.of("releaseError", ex.getClass().getSimpleName());
		}
	}

	private List<Object> hold(String id, String key, ResourceClient resource) {
		LockContext context = LockContext.current();
		long token = context.fencingToken();
		long value = enter(resource, key, token);
		String sessionAtStart = this.session.get();
		WorkerEvents.emit("held", "id", id, "token", token, "session", sessionAtStart);
		CountDownLatch release = this.signals.apply("release:" + id);
		long start = System.nanoTime();
		boolean held = true;
		int changes = 0;
		long notHeldMillis = 0;
		long lastChange = start;
		while (!LockWorker.await(release, Duration.ofMillis(2))) {
			boolean now = context.isHeld();
			if (now != held) {
				long at = System.nanoTime();
				if (!now) {
					lastChange = at;
				}
				else {
					notHeldMillis += (at - lastChange) / 1_000_000;
				}
				held = now;
				changes++;
				WorkerEvents.emit("state", "id", id, "held", now, "atMs", (at - start) / 1_000_000);
			}
		}
		boolean checked = CriticalSection.isHeld();
		boolean accepted = checked && resource.write(key, value + 1, true);
		resource.exit(key);
		return List.of("token", token, "checked", checked, "accepted", accepted, "changes", changes, "notHeldMs",
				notHeldMillis, "sameSession", sessionAtStart.equals(this.session.get()), "tokenKept",
				token == context.fencingToken());
	}

	private List<Object> pause(String id, String key, ResourceClient resource, boolean watch, boolean releaseNow) {
		LockContext context = LockContext.current();
		long token = context.fencingToken();
		long value = enter(resource, key, token);
		boolean checkedBefore = CriticalSection.isHeld();
		// read once before the pause, so that the first read after it loads no class
		ThreadSchedule.now();
		ThreadSchedule.runnableThreads();
		WorkerEvents.emit("at-pause", "id", id, "token", token, "checked", checkedBefore);
		// with watch=true this thread notices the end of the pause by itself and checks at once
		long pauseEnd = watch ? awaitOwnPause() : 0;
		// what the scheduler did to this thread meanwhile, read inside the wall-time window: why the wall time
		// exceeds the CPU time
		ThreadSchedule scheduleBefore = ThreadSchedule.now();
		long cpuStart = CPU.getCurrentThreadCpuTime();
		boolean firstCheckPassed = CriticalSection.isHeld();
		long firstCheckCpuMicros = (CPU.getCurrentThreadCpuTime() - cpuStart) / 1_000;
		ThreadSchedule schedule = ThreadSchedule.now().since(scheduleBefore);
		long firstCheckMicros = watch ? (System.nanoTime() - pauseEnd) / 1_000 : -1;
		long runnable = ThreadSchedule.runnableThreads();
		long firstCheckWallMillis = System.currentTimeMillis();
		if (!LockWorker.await(this.signals.apply("go:" + id), SIGNAL_TIMEOUT)) {
			throw new IllegalStateException("no go signal for " + id);
		}
		long resumed = System.nanoTime();
		// the check passed before the pause: the holder writes, unaware of the pause
		boolean heldAtResume = context.isHeld();
		boolean accepted = resource.write(key, value + 1, checkedBefore);
		long detected = -1;
		while (!releaseNow && System.nanoTime() - resumed < DETECTION_TIMEOUT.toNanos()) {
			if (!CriticalSection.isHeld()) {
				detected = (System.nanoTime() - resumed) / 1_000_000;
				break;
			}
			LockWorker.await(new CountDownLatch(1), Duration.ofMillis(1));
		}
		resource.exit(key);
		return List.of("token", token, "heldAtResume", heldAtResume, "accepted", accepted, "assertHeldFailedAfterMs",
				detected, "firstCheckPassed", firstCheckPassed, "firstCheckAtMs", firstCheckWallMillis,
				"firstCheckMicros", firstCheckMicros, "firstCheckCpuMicros", firstCheckCpuMicros,
				"firstCheckRunQueueMicros", schedule.runQueueNanos() / 1_000, "firstCheckBlocked",
				schedule.voluntarySwitches(), "firstCheckPreempted", schedule.involuntarySwitches(), "runnableThreads",
				runnable);
	}

	// Returns when this thread runs again after the process was frozen: a gap of over a second in its 1 ms steps
	private static long awaitOwnPause() {
		long last = System.nanoTime();
		while (true) {
			LockWorker.await(new CountDownLatch(1), Duration.ofMillis(1));
			long now = System.nanoTime();
			if (now - last > Duration.ofSeconds(1).toNanos()) {
				return now;
			}
			last = now;
		}
	}

	private static long enter(ResourceClient resource, String key, long token) {
		long value = resource.enter(key, token);
		if (value < 0) {
			throw new IllegalStateException("the resource rejected token " + token + " on key " + key
					+ " although the lock was just acquired");
		}
		return value;
	}

	private static long millisSince(long start) {
		return (System.nanoTime() - start) / 1_000_000;
	}

}

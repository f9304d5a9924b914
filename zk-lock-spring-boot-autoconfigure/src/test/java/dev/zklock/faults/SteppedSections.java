package dev.zklock.faults;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.zklock.LockContext;
import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;

/**
 * The single critical sections of a {@link LockWorker} that the test steps through,
 * each on a thread of its own named after the command's id:
 * <ul>
 * <li>{@code hold}: acquire, enter and read, emit {@code held}, then watch
 * {@link LockContext#isHeld()} every few milliseconds and emit {@code state} on each
 * change until {@code release}; then write if {@code assertHeld()} passes, leave,
 * release and emit {@code released}.</li>
 * <li>{@code pause}: acquire, enter and read, check {@code assertHeld()}, emit
 * {@code at-pause} and wait for {@code go} (the test freezes the process meanwhile);
 * then write at once, as a holder that checked before a GC pause would, and wait
 * until {@code assertHeld()} fails; emit {@code pause-done}.</li>
 * <li>{@code once}: acquire (waiting as long as it takes), run a
 * {@link CriticalSection}, release, emit {@code once-done}.</li>
 * </ul>
 * Parameters: {@code key}, {@code name} (lock name), {@code timeoutMs}.
 */
final class SteppedSections {

	private static final Duration SIGNAL_TIMEOUT = Duration.ofMinutes(5);

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
		LockRequest request = LockRequest.named(command.getOrDefault("name", "faults"))
			.keys(key)
			.timeout(LockWorker.millis(command, "timeoutMs", 60_000))
			.build();
		long start = System.nanoTime();
		try (ResourceClient resource = ResourceClient.connect(this.settings.resource());
				LockHandle handle = this.settings.template().tryAcquire(request)) {
			if (!handle.isAcquired()) {
				WorkerEvents.emit("not-acquired", "id", id, "waitMs", millisSince(start));
				return;
			}
			long waitMillis = millisSince(start);
			switch (verb) {
				case "hold" -> hold(id, key, resource);
				case "pause" -> pause(id, key, resource);
				default -> WorkerEvents.emit("once-done", "id", id, "waitMs", waitMillis, "outcome",
						CriticalSection.run(resource, key, true, 0));
			}
		}
		catch (LockException | IllegalStateException | java.io.UncheckedIOException ex) {
			WorkerEvents.emit("error", "id", id, "error", ex.toString().replace(' ', '_'));
		}
	}

	private void hold(String id, String key, ResourceClient resource) {
		LockContext context = LockContext.current();
		long token = context.fencingToken();
		long value = resource.enter(key, token);
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
		WorkerEvents.emit("released", "id", id, "checked", checked, "accepted", accepted, "changes", changes,
				"notHeldMs", notHeldMillis, "sameSession", sessionAtStart.equals(this.session.get()), "tokenKept",
				token == context.fencingToken());
	}

	private void pause(String id, String key, ResourceClient resource) {
		LockContext context = LockContext.current();
		long token = context.fencingToken();
		long value = resource.enter(key, token);
		boolean checkedBefore = CriticalSection.isHeld();
		WorkerEvents.emit("at-pause", "id", id, "token", token, "checked", checkedBefore);
		if (!LockWorker.await(this.signals.apply("go:" + id), SIGNAL_TIMEOUT)) {
			WorkerEvents.emit("error", "id", id, "error", "no_go_signal");
			return;
		}
		long resumed = System.nanoTime();
		// the check passed before the pause: the holder writes, unaware of the pause
		boolean heldAtResume = context.isHeld();
		boolean accepted = resource.write(key, value + 1, checkedBefore);
		long detected = -1;
		while (System.nanoTime() - resumed < DETECTION_TIMEOUT.toNanos()) {
			if (!CriticalSection.isHeld()) {
				detected = (System.nanoTime() - resumed) / 1_000_000;
				break;
			}
			LockWorker.await(new CountDownLatch(1), Duration.ofMillis(1));
		}
		resource.exit(key);
		WorkerEvents.emit("pause-done", "id", id, "token", token, "heldAtResume", heldAtResume, "accepted", accepted,
				"assertHeldFailedAfterMs", detected);
	}

	private static long millisSince(long start) {
		return (System.nanoTime() - start) / 1_000_000;
	}

}

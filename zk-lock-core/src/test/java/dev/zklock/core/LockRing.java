package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.zklock.LockHandle;
import dev.zklock.LockManager;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Threads in a ring of nested locks for the deadlock tests: thread {@code i} takes
 * lock {@code i} and, once every thread holds its own, asks for lock {@code i + 1}
 * (the last for lock 0): a cycle of as many waits as threads. Each keeps what
 * ended its inner wait and when.
 */
final class LockRing {

	/** How each thread takes its own lock and asks for the next. */
	enum Crossing {

		MUTEX(LockMode.MUTEX, false, LockMode.MUTEX, false), WRITE(LockMode.WRITE, false, LockMode.WRITE, false),
		READ_IN_WRITE(LockMode.WRITE, true, LockMode.WRITE, false),
		READ_THEN_WRITE(LockMode.READ, false, LockMode.WRITE, false),
		LOCAL_HANDOFF(LockMode.MUTEX, false, LockMode.MUTEX, true);

		private final LockMode outer;

		private final boolean readInside;

		private final LockMode inner;

		private final boolean localHandoff;

		Crossing(LockMode outer, boolean readInside, LockMode inner, boolean localHandoff) {
			this.outer = outer;
			this.readInside = readInside;
			this.inner = inner;
			this.localHandoff = localHandoff;
		}

	}

	/**
	 * How one thread's inner wait ended.
	 *
	 * @param thread the thread's name
	 * @param acquired whether it got the next lock
	 * @param failure what it failed with, or {@code null}
	 * @param endedAt when, on {@link System#nanoTime()}'s clock
	 */
	record Outcome(String thread, boolean acquired, @Nullable Throwable failure, long endedAt) {

	}

	private static final Duration OUTER_TIMEOUT = Duration.ofSeconds(30);

	private final CountDownLatch allHold;

	private final List<CompletableFuture<Outcome>> outcomes = new ArrayList<>();

	/**
	 * Start the threads, named after the locks they take first.
	 * @param managers one manager per thread, in ring order
	 * @param locks the lock names, one per thread
	 * @param crossing the modes
	 * @param innerTimeout how long each waits for the next lock
	 */
	LockRing(List<? extends LockManager> managers, List<String> locks, Crossing crossing, Duration innerTimeout) {
		this.allHold = new CountDownLatch(managers.size());
		for (int i = 0; i < managers.size(); i++) {
			this.outcomes.add(start(managers.get(i), "holds-" + locks.get(i), locks.get(i),
					locks.get((i + 1) % locks.size()), crossing, innerTimeout));
		}
	}

	private CompletableFuture<Outcome> start(LockManager manager, String thread, String held, String wanted,
			Crossing crossing, Duration innerTimeout) {
		return inThread(thread, () -> {
			try (LockHandle outer = manager.acquire(request(held, crossing.outer, OUTER_TIMEOUT, crossing));
					LockHandle read = crossing.readInside
							? manager.acquire(request(held, LockMode.READ, OUTER_TIMEOUT, crossing)) : null) {
				this.allHold.countDown();
				this.allHold.await();
				return inner(manager, thread, request(wanted, crossing.inner, innerTimeout, crossing));
			}
		});
	}

	/**
	 * What a thread of a deadlock test does, up to the release of its locks.
	 */
	@FunctionalInterface
	interface Body {

		Outcome run() throws Exception;

	}

	/**
	 * Run a body on a thread of its own.
	 * @return completes with the body's outcome once it returned (its locks
	 * released), exceptionally with what it threw
	 */
	static CompletableFuture<Outcome> inThread(String thread, Body body) {
		CompletableFuture<Outcome> outcome = new CompletableFuture<>();
		new Thread(() -> {
			try {
				outcome.complete(body.run());
			}
			catch (Throwable ex) {
				outcome.completeExceptionally(ex);
			}
		}, thread).start();
		return outcome;
	}

	/**
	 * Ask for a lock and say how the wait ended: acquired, not acquired, or failed.
	 */
	static Outcome inner(LockManager manager, String thread, LockRequest request) {
		try (LockHandle inner = manager.acquire(request)) {
			return new Outcome(thread, inner.isAcquired(), null, System.nanoTime());
		}
		catch (RuntimeException ex) {
			return new Outcome(thread, false, ex, System.nanoTime());
		}
	}

	private static LockRequest request(String name, LockMode mode, Duration timeout, Crossing crossing) {
		return LockRequest.named(name)
			.keys("k")
			.mode(mode)
			.timeout(timeout)
			.localHandoff(crossing.localHandoff)
			.build();
	}

	/**
	 * Wait until every thread holds its own lock and asks for the next.
	 * @return when the cycle formed, on {@link System#nanoTime()}'s clock
	 */
	long awaitFormed() throws InterruptedException {
		assertThat(this.allHold.await(30, TimeUnit.SECONDS)).isTrue();
		return System.nanoTime();
	}

	/**
	 * How every inner wait ended, in ring order; waits for all of them, and for
	 * their outer locks' release.
	 */
	List<Outcome> outcomes() throws Exception {
		List<Outcome> ended = new ArrayList<>();
		for (CompletableFuture<Outcome> outcome : this.outcomes) {
			ended.add(outcome.get(30, TimeUnit.SECONDS));
		}
		return ended;
	}

}

package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.curator.CuratorZookeeperClient;

import dev.zklock.LockContextHolder;
import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

/**
 * The blocking API of a {@link CuratorLockManager}: a thin wait on the engine's
 * acquisition, on top of each thread's {@link LockSlot}s, so that a thread re-enters
 * a key it holds without a second node and releases it in ZooKeeper at the
 * outermost close. A thread holding WRITE takes READ with a node sorted at its
 * write node, as Curator does; a READ holder asking for WRITE is refused.
 */
final class BlockingLocks {

	// Entries a HashMap of default capacity takes before it grows
	private static final int SMALL_MAP_SLOTS = 12;

	// Curator's default session timeout, for a client that has not connected yet
	private static final int DEFAULT_SESSION_MILLIS = 60_000;

	private final LockEngine engine;

	private final CuratorLockManager manager;

	private final ThreadLocal<Map<SlotKey, LockSlot>> threadSlots = new ThreadLocal<>();

	BlockingLocks(LockEngine engine, CuratorLockManager manager) {
		this.engine = engine;
		this.manager = manager;
	}

	/**
	 * Acquire the request's lock for the calling thread, re-entering the keys it
	 * holds already, as {@link CuratorLockManager#acquire(LockRequest)} describes.
	 */
	LockHandle acquire(LockRequest request) {
		Objects.requireNonNull(request, "request must not be null");
		List<String> keys = (request.keys().size() < 2) ? request.keys() : List.copyOf(new TreeSet<>(request.keys()));
		String name = request.name();
		LockMode mode = request.mode();
		if (Thread.currentThread().isInterrupted()) {
			throw new LockException("Thread '" + Thread.currentThread().getName()
					+ "' was interrupted before acquiring lock '" + name + "' " + describe(keys)
					+ "; the interrupt flag is kept and nothing was created in ZooKeeper");
		}
		this.engine.checkStarted(name);
		List<String> lockKeys = keys.isEmpty() ? Collections.singletonList(null) : keys;
		Map<SlotKey, LockSlot> slots = slots();
		SlotKey[] slotKeys = new SlotKey[lockKeys.size()];
		List<Acquisition.Target> targets = new ArrayList<>(lockKeys.size());
		List<SlotKey> targetSlots = new ArrayList<>(lockKeys.size());
		for (int i = 0; i < slotKeys.length; i++) {
			String path = this.engine.pathFor(name, lockKeys.get(i));
			slotKeys[i] = SlotKey.of(path, mode);
			LockSlot slot = slots.get(slotKeys[i]);
			if (mode == LockMode.WRITE) {
				rejectUpgrade(slot, name, lockKeys.get(i));
			}
			if (slot == null || slot.count(mode) == 0) {
				Hold writer = ownedWrite(slot, mode);
				targets.add(new Acquisition.Target(lockKeys.get(i), path, (writer != null) ? writer.nodePath() : null,
						(writer != null) ? writer.entry().node().session() : 0));
				targetSlots.add(slotKeys[i]);
			}
		}
		if (!targets.isEmpty()) {
			this.engine.shutdown().checkTakingLocks(name);
			this.engine.holdTimers().checkHoldBounds(request);
			List<Hold> taken = BlockingWait.acquisition(this.engine, this.engine.acquire(name, mode,
					request.permits(), targets, request.timeout(), Thread.currentThread(), request.usesLocalHandoff()),
					name, mode);
			if (taken == null) {
				return new CuratorLockHandle(this.manager, name, keys, mode, List.of(), List.of(), false);
			}
			this.engine.holdTimers().start(taken, request);
			for (int i = 0; i < taken.size(); i++) {
				slots.computeIfAbsent(targetSlots.get(i), (slotKey) -> new LockSlot()).hold(mode, taken.get(i));
			}
		}
		List<Hold> holds = new ArrayList<>(slotKeys.length);
		for (SlotKey slotKey : slotKeys) {
			// every slot was entered or created above
			LockSlot slot = Objects.requireNonNull(slots.get(slotKey));
			slot.enter(mode);
			holds.add(Objects.requireNonNull(slot.hold(mode)));
		}
		CuratorLockHandle handle = new CuratorLockHandle(this.manager, name, keys, mode, List.copyOf(holds),
				List.of(slotKeys), true);
		LockContextHolder.push(handle);
		return handle;
	}

	/**
	 * Leave the slots of one handle, innermost first, and release in ZooKeeper what
	 * was entered outermost. Every hold is released; local state is cleared even
	 * when ZooKeeper fails, and an interrupt does not stop the release,
	 * nor the wait for its confirmation, which is bounded ({@link #awaitRelease}).
	 * @throws LockException when a release failed in ZooKeeper
	 */
	void release(LockMode mode, List<SlotKey> slotKeys) {
		Map<SlotKey, LockSlot> slots = this.threadSlots.get();
		List<Hold> toRelease = new ArrayList<>(slotKeys.size());
		for (int i = slotKeys.size() - 1; i >= 0; i--) {
			LockSlot slot = (slots != null) ? slots.get(slotKeys.get(i)) : null;
			if (slot == null) {
				continue;
			}
			Hold hold = slot.exit(mode);
			if (hold != null) {
				toRelease.add(0, hold);
			}
			if (slot.isEmpty()) {
				slots.remove(slotKeys.get(i));
			}
		}
		if (slots != null && slotKeys.size() > SMALL_MAP_SLOTS && slots.isEmpty()) {
			// a map that grew for many keys is dropped, so an idle thread keeps only a small one
			this.threadSlots.remove();
		}
		if (!toRelease.isEmpty()) {
			awaitRelease(toRelease.get(0).entry().name(), this.engine.release(toRelease), releaseBound());
		}
	}

	/**
	 * Wait for a release to be confirmed, whatever interrupts come (the interrupt
	 * flag is kept), but not past a bound: a release that ZooKeeper neither confirms
	 * nor fails by then is left to finish in the background, as a failed one is.
	 * @param name the lock name
	 * @param released the release
	 * @param bound the longest wait
	 * @throws LockException when the release failed or was not confirmed in time
	 */
	static void awaitRelease(String name, CompletableFuture<Void> released, Duration bound) {
		// bounded by a timer, so the thread parks as before: WAITING, like any wait for ZooKeeper's answer
		CompletableFuture<Void> bounded = released.copy().orTimeout(bound.toNanos(), TimeUnit.NANOSECONDS);
		boolean interrupted = false;
		try {
			while (true) {
				try {
					bounded.get();
					return;
				}
				catch (InterruptedException ex) {
					// the release is under way in ZooKeeper: its answer is worth the rest of the wait
					interrupted = true;
				}
				catch (ExecutionException ex) {
					if (released.isDone() && !released.isCompletedExceptionally()) {
						// confirmed just as the bound passed
						return;
					}
					throw releaseFailure(name, released, bound, ex);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static LockException releaseFailure(String name, CompletableFuture<Void> released, Duration bound,
			ExecutionException ex) {
		if (!released.isDone()) {
			return new LockException("The release of lock '" + name + "' was not confirmed by ZooKeeper within "
					+ bound + "; the lock is no longer held by this process, and its nodes are deleted in the "
					+ "background or when the session ends. Check the ZooKeeper connection", ex.getCause());
		}
		Throwable failure = released.handle((ignored, t) -> t).join();
		Throwable cause = LockEngine.unwrap((failure != null) ? failure : ex);
		return (cause instanceof LockException lockException) ? lockException
				: new LockException("Could not release lock '" + name + "': " + cause, cause);
	}

	// Past a session and a connection timeout, ZooKeeper has deleted the nodes anyway, or Curator gave up on them
	private Duration releaseBound() {
		CuratorZookeeperClient zookeeper = this.engine.client().getZookeeperClient();
		int sessionMillis = zookeeper.getLastNegotiatedSessionTimeoutMs();
		return Duration.ofMillis(((sessionMillis > 0) ? sessionMillis : DEFAULT_SESSION_MILLIS)
				+ (long) zookeeper.getConnectionTimeoutMs());
	}

	// For a READ, the WRITE this thread holds on the same path, unless lost: a lost WRITE vouches for nothing
	private static @Nullable Hold ownedWrite(@Nullable LockSlot slot, LockMode mode) {
		Hold write = (mode == LockMode.READ && slot != null) ? slot.hold(LockMode.WRITE) : null;
		return (write != null && RegistryEntry.OWNED.contains(write.entry().state())) ? write : null;
	}

	// A thread keeps its map, empty when idle: a plain HashMap pins no class of ours in pooled threads
	private Map<SlotKey, LockSlot> slots() {
		Map<SlotKey, LockSlot> slots = this.threadSlots.get();
		if (slots == null) {
			slots = new HashMap<>();
			this.threadSlots.set(slots);
		}
		return slots;
	}

	private static void rejectUpgrade(@Nullable LockSlot slot, String name, @Nullable String key) {
		if (slot != null && slot.count(LockMode.READ) > 0 && slot.count(LockMode.WRITE) == 0) {
			throw new LockException("Lock '" + name + "' key '" + KeyEncoder.abbreviate(key)
					+ "' is held in READ mode by this thread, which now asks for WRITE: upgrading a read lock would "
					+ "wait forever. Take the WRITE lock first (a WRITE holder may also take READ), or release the "
					+ "READ lock before asking for WRITE");
		}
	}

	private static String describe(List<String> keys) {
		if (keys.isEmpty()) {
			return "(no key)";
		}
		List<String> shown = new ArrayList<>(keys.size());
		for (String key : keys) {
			shown.add(KeyEncoder.abbreviate(key));
		}
		return "keys " + shown;
	}

}

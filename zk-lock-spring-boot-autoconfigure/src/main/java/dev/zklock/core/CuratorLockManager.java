package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.PathUtils;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockContextHolder;
import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

/**
 * {@link LockManager} on Apache Curator's lock recipes.
 * <p>
 * A lock lives at {@code <basePath>/<name>/<key>}, each part encoded by
 * {@link KeyEncoder} into one safe path segment; a request without keys uses the
 * reserved segment {@link KeyEncoder#NO_KEY}. MUTEX uses {@link AsyncMutex}, which
 * follows {@code InterProcessMutex}'s protocol but sends the first
 * {@code getChildren} right behind the {@code create}; READ and WRITE a pair of
 * {@code InterProcessMutex}es that follow
 * {@code InterProcessReadWriteLock}'s protocol; SEMAPHORE follows
 * {@code InterProcessSemaphoreV2}'s. Each waiter watches one node (its predecessor;
 * a reader, the writer ahead of it), so a release wakes one waiter, or the readers
 * behind a writer. Parent nodes are containers that ZooKeeper removes once empty.
 * MUTEX, READ/WRITE and SEMAPHORE on the same name and key are independent locks:
 * use one family per name.
 * <p>
 * Every handle has a fencing token in every mode: the creation zxid of the
 * holder's node (the lease, for SEMAPHORE), taken from the create response. Each
 * node stores {@link LockOwnerData}. An acquired handle is the thread's
 * {@link dev.zklock.LockContext} until closed. A {@link ConnectionLossHandler}
 * keeps the {@link LockRegistry} states in line with the connection: see
 * {@link LockState}. Close the manager to stop listening to the client.
 * <p>
 * Every outermost acquisition by a thread gets its own recipe instance (which
 * costs no ZooKeeper round trip); nested acquisitions of the same path by the same
 * thread re-enter it without a second node and release at the outermost close.
 * Several keys are locked in sorted order, all or nothing, within one timeout.
 */
public class CuratorLockManager implements LockManager, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(CuratorLockManager.class);

	private static final long MAX_WAIT_NANOS = Long.MAX_VALUE / 4;

	// Entries a HashMap of default capacity takes before it grows
	private static final int SMALL_MAP_SLOTS = 12;

	private final CuratorFramework client;

	private final String basePath;

	private final Duration defaultTimeout;

	private final LockRegistry registry = new LockRegistry();

	private final ThreadLocal<Map<SlotKey, LockSlot>> threadSlots = new ThreadLocal<>();

	private final ConnectionLossHandler lossHandler;

	private volatile LockOwnerData ownerData = LockOwnerData.json(null);

	/**
	 * Create a new manager, which starts listening to the client's connection state
	 * at once.
	 * @param client the Curator client; it must be started before locks are taken
	 * @param basePath the path under which every lock node is created, such as
	 * {@code /locks}; neither the root nor ZooKeeper's own {@code /zookeeper}
	 * @param defaultTimeout the wait used by requests without a timeout
	 */
	public CuratorLockManager(CuratorFramework client, String basePath, Duration defaultTimeout) {
		this.client = Objects.requireNonNull(client, "client must not be null");
		this.basePath = normalizeBasePath(basePath);
		Objects.requireNonNull(defaultTimeout, "defaultTimeout must not be null");
		if (defaultTimeout.isNegative()) {
			throw new IllegalArgumentException(
					"zk-lock.default-timeout must not be negative, got " + defaultTimeout + "; use 0 to try once");
		}
		this.defaultTimeout = defaultTimeout;
		this.lossHandler = new ConnectionLossHandler(client, this.registry);
		this.lossHandler.start();
	}

	/**
	 * Set the data stored in each lock node; by default JSON with host, pid and
	 * thread ({@link LockOwnerData#json(String)}).
	 * @param ownerData the owner data; {@link LockOwnerData#none()} for the client's
	 * default data
	 */
	public void setOwnerData(LockOwnerData ownerData) {
		this.ownerData = Objects.requireNonNull(ownerData, "ownerData must not be null");
	}

	/**
	 * Set whether a thread whose lock is lost is interrupted, so that blocking work
	 * in the critical section stops. A lock in doubt is not interrupted: it may be
	 * held again.
	 * @param interruptOnLoss whether to interrupt
	 */
	public void setInterruptOnLoss(boolean interruptOnLoss) {
		this.lossHandler.setInterruptOnLoss(interruptOnLoss);
	}

	/**
	 * Add a listener told about every lost lock.
	 * @param listener the listener
	 */
	public void addLockLossListener(LockLossListener listener) {
		this.lossHandler.addListener(Objects.requireNonNull(listener, "listener must not be null"));
	}

	/**
	 * Stop listening to the client's connection state. Locks still held stay held
	 * until released or until the client closes.
	 */
	@Override
	public void close() {
		this.lossHandler.close();
	}

	/**
	 * The path under which every lock node is created.
	 * @return the base path
	 */
	public String getBasePath() {
		return this.basePath;
	}

	/**
	 * The locks this manager currently holds and awaits.
	 * @return the registry, read-only
	 */
	public LockRegistry getRegistry() {
		return this.registry;
	}

	/**
	 * The ZooKeeper path of a lock.
	 * @param name the lock name
	 * @param key the key, or {@code null} for a lock without keys
	 * @return the path, always a direct grandchild of the base path
	 */
	public String pathFor(String name, String key) {
		String keySegment = (key != null) ? KeyEncoder.encode(key) : KeyEncoder.NO_KEY;
		return this.basePath + "/" + KeyEncoder.encode(name) + "/" + keySegment;
	}

	@Override
	public LockHandle acquire(LockRequest request) {
		Objects.requireNonNull(request, "request must not be null");
		List<String> keys = (request.keys().size() < 2) ? request.keys() : List.copyOf(new TreeSet<>(request.keys()));
		String name = request.name();
		LockMode mode = request.mode();
		if (Thread.currentThread().isInterrupted()) {
			throw new LockException("Thread '" + Thread.currentThread().getName()
					+ "' was interrupted before acquiring lock '" + name + "' " + describe(keys)
					+ "; the interrupt flag is kept and nothing was created in ZooKeeper");
		}
		checkStarted(name);
		List<String> lockKeys = keys.isEmpty() ? Collections.singletonList(null) : keys;
		SlotKey[] slotKeys = new SlotKey[lockKeys.size()];
		for (int i = 0; i < slotKeys.length; i++) {
			slotKeys[i] = SlotKey.of(pathFor(name, lockKeys.get(i)), mode);
		}
		Map<SlotKey, LockSlot> slots = slots();
		if (mode == LockMode.WRITE) {
			for (int i = 0; i < slotKeys.length; i++) {
				rejectUpgrade(slots.get(slotKeys[i]), name, lockKeys.get(i));
			}
		}
		Duration timeout = (request.timeout() != null) ? request.timeout() : this.defaultTimeout;
		boolean tryOnce = timeout.isZero();
		long deadline = System.nanoTime() + waitNanos(timeout);
		List<LockHold> holds = new ArrayList<>(lockKeys.size());
		String currentKey = null;
		String currentPath = null;
		try {
			for (int i = 0; i < slotKeys.length; i++) {
				String key = lockKeys.get(i);
				SlotKey slotKey = slotKeys[i];
				currentKey = key;
				currentPath = slotKey.path();
				LockSlot slot = slots.get(slotKey);
				if (slot == null) {
					slot = newSlot(name, key, currentPath, mode, request.permits());
				}
				if (slot.count(mode) == 0) {
					long waitMillis = tryOnce ? 0 : remainingMillis(deadline);
					if (!acquireInZooKeeper(slot, mode, waitMillis)) {
						logger.debug("Lock '{}' key '{}' not acquired within {}", name, KeyEncoder.abbreviate(key),
								timeout);
						releaseTaken(name, holds);
						return new CuratorLockHandle(this, name, keys, mode, List.of(), false);
					}
					slots.putIfAbsent(slotKey, slot);
				}
				slot.enter(mode);
				holds.add(new LockHold(slotKey, slot, mode, slot.entry(mode)));
			}
			CuratorLockHandle handle = new CuratorLockHandle(this, name, keys, mode, List.copyOf(holds), true);
			LockContextHolder.push(handle);
			return handle;
		}
		catch (Exception ex) {
			boolean interrupted = Thread.interrupted() || isInterruption(ex);
			try {
				releaseTaken(name, holds);
			}
			catch (LockException releaseFailure) {
				ex.addSuppressed(releaseFailure);
			}
			finally {
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
			if (!interrupted && ex instanceof LockException lockException) {
				throw lockException;
			}
			if (interrupted) {
				throw new LockException("Interrupted while waiting for lock '" + name + "' key '"
						+ KeyEncoder.abbreviate(currentKey) + "' in " + mode
						+ " mode; its node was removed and the interrupt flag is kept", ex);
			}
			throw new LockException("Could not acquire lock '" + name + "' key '" + KeyEncoder.abbreviate(currentKey)
					+ "' in " + mode + " mode at " + currentPath + ": " + ex + "; " + advice(ex), ex);
		}
	}

	/**
	 * Release holds of one handle, innermost first. Every hold is attempted; local
	 * state is cleared even when ZooKeeper fails.
	 * @param name the lock name
	 * @param holds the holds to release
	 * @throws LockException when a release failed in ZooKeeper
	 */
	void release(String name, List<LockHold> holds) {
		boolean interrupted = Thread.interrupted();
		try {
			releaseAll(name, holds);
		}
		finally {
			dropIfLarge(holds.size());
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	// Releases what an unfinished acquisition took, at most once
	private void releaseTaken(String name, List<LockHold> holds) {
		List<LockHold> taken = new ArrayList<>(holds);
		holds.clear();
		try {
			releaseAll(name, taken);
		}
		finally {
			dropIfLarge(taken.size());
		}
	}

	private void releaseAll(String name, List<LockHold> holds) {
		LockException failure = null;
		for (int i = holds.size() - 1; i >= 0; i--) {
			LockHold hold = holds.get(i);
			try {
				exit(hold);
			}
			catch (Exception ex) {
				String key = KeyEncoder.abbreviate(hold.slot().key());
				logger.error("Could not release lock '{}' key '{}' ({} mode) at {}; this process no longer holds it, "
						+ "and Curator deletes the node in the background or ZooKeeper when the session ends", name,
						key, hold.mode(), hold.slot().path(), ex);
				if (failure == null) {
					failure = new LockException("Could not release lock '" + name + "' key '" + key + "' at "
							+ hold.slot().path() + ": " + ex + "; the lock is no longer held by this process and its "
							+ "node is deleted in the background, " + advice(ex), ex);
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	private void exit(LockHold hold) throws Exception {
		LockSlot slot = hold.slot();
		if (!slot.exit(hold.mode())) {
			return;
		}
		LockRegistry.Entry entry = slot.removeEntry(hold.mode());
		// a lost lock went with its session: nothing to confirm
		boolean sessionGone = entry == null
				|| this.registry.transition(entry, LockRegistry.Entry.OWNED, LockState.RELEASING) == null;
		boolean released = false;
		try {
			releaseInZooKeeper(slot, hold.mode(), entry);
			released = true;
			// guarded: the varargs array would be built even with debug off
			if (logger.isDebugEnabled()) {
				logger.debug("Released lock '{}' key '{}' ({})", slot.name(), KeyEncoder.abbreviate(slot.key()),
						hold.mode());
			}
		}
		finally {
			if (released || sessionGone) {
				if (entry != null) {
					this.registry.remove(entry);
				}
			}
			else {
				this.lossHandler.releaseFailed();
			}
			if (slot.isEmpty()) {
				Map<SlotKey, LockSlot> slots = this.threadSlots.get();
				if (slots != null) {
					slots.remove(hold.slotKey(), slot);
				}
			}
		}
	}

	// An interrupt must not fail a release: Curator gives up its delete, so delete the node here,
	// ignoring interrupts until ZooKeeper answered, and keep the interrupt flag
	private void releaseInZooKeeper(LockSlot slot, LockMode mode, LockRegistry.Entry entry) throws Exception {
		try {
			slot.release(mode);
		}
		catch (Exception ex) {
			LockNode node = (entry != null) ? entry.node() : null;
			if (!(Thread.interrupted() | isInterruption(ex)) || node == null) {
				throw ex;
			}
			try {
				deleteIgnoringInterrupts(node.path());
			}
			finally {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void deleteIgnoringInterrupts(String path) throws Exception {
		while (true) {
			try {
				this.client.delete().guaranteed().forPath(path);
				return;
			}
			catch (KeeperException.NoNodeException ex) {
				return;
			}
			catch (Exception ex) {
				if (!(Thread.interrupted() | isInterruption(ex))) {
					throw ex;
				}
			}
		}
	}

	private boolean acquireInZooKeeper(LockSlot slot, LockMode mode, long waitMillis) throws Exception {
		LockRegistry.Entry entry = this.registry.waiting(slot.name(), slot.key(), slot.path(), mode,
				this.lossHandler.lossEpoch());
		LockNode node = null;
		try {
			node = slot.acquire(mode, waitMillis);
		}
		finally {
			if (node != null) {
				this.registry.held(entry, node);
				slot.entry(mode, entry);
				if (logger.isDebugEnabled()) {
					logger.debug("Acquired lock '{}' key '{}' ({}), fencing token {}", slot.name(),
							KeyEncoder.abbreviate(slot.key()), mode, node.czxid());
				}
				this.lossHandler.acquired(entry);
			}
			else {
				this.registry.remove(entry);
			}
		}
		return node != null;
	}

	private LockSlot newSlot(String name, String key, String path, LockMode mode, int permits) {
		return switch (mode) {
			case MUTEX -> new PipelinedMutexSlot(this.client, name, key, path, this.ownerData);
			case READ, WRITE -> new ReadWriteSlot(this.client, name, key, path, this.ownerData);
			case SEMAPHORE -> new SemaphoreSlot(this.client, name, key, path, permits, this.ownerData);
		};
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

	// A map that grew for many keys is dropped once empty, so an idle thread keeps only a small one
	private void dropIfLarge(int released) {
		if (released > SMALL_MAP_SLOTS) {
			Map<SlotKey, LockSlot> slots = this.threadSlots.get();
			if (slots != null && slots.isEmpty()) {
				this.threadSlots.remove();
			}
		}
	}

	private void rejectUpgrade(LockSlot slot, String name, String key) {
		if (slot != null && slot.count(LockMode.READ) > 0 && slot.count(LockMode.WRITE) == 0) {
			throw new LockException("Lock '" + name + "' key '" + KeyEncoder.abbreviate(key)
					+ "' is held in READ mode by this thread, which now asks for WRITE: upgrading a read lock would "
					+ "wait forever. Take the WRITE lock first (a WRITE holder may also take READ), or release the "
					+ "READ lock before asking for WRITE");
		}
	}

	private void checkStarted(String name) {
		CuratorFrameworkState state = this.client.getState();
		if (state != CuratorFrameworkState.STARTED) {
			throw new LockException("Cannot acquire lock '" + name + "': the Curator client is " + state
					+ ", not STARTED; start it before taking locks");
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

	private static long waitNanos(Duration timeout) {
		if (timeout.compareTo(Duration.ofNanos(MAX_WAIT_NANOS)) >= 0) {
			return MAX_WAIT_NANOS;
		}
		return timeout.toNanos();
	}

	private static long remainingMillis(long deadline) {
		long remaining = deadline - System.nanoTime();
		if (remaining <= 0) {
			return 0;
		}
		return (remaining + 999_999) / 1_000_000;
	}

	// What to check for a ZooKeeper failure: the credentials when an ACL refused us
	private String advice(Throwable ex) {
		for (Throwable current = ex; current != null; current = current.getCause()) {
			if (current instanceof KeeperException.NoAuthException) {
				return "ZooKeeper refused access to a node under " + this.basePath + " (NoAuth): an ACL of another "
						+ "identity protects it, so set zk-lock.auth.scheme and zk-lock.auth.credentials to the "
						+ "credentials of the applications that share these locks, or use a zk-lock.base-path of "
						+ "your own";
			}
		}
		return "check the ZooKeeper connection (zk-lock.connect-string)";
	}

	private static boolean isInterruption(Throwable ex) {
		for (Throwable current = ex; current != null; current = current.getCause()) {
			if (current instanceof InterruptedException) {
				return true;
			}
		}
		return false;
	}

	static String normalizeBasePath(String basePath) {
		if (basePath == null || basePath.isBlank()) {
			throw new IllegalArgumentException("zk-lock.base-path must not be blank; use a node such as /locks");
		}
		String path = basePath.trim();
		while (path.length() > 1 && path.endsWith("/")) {
			path = path.substring(0, path.length() - 1);
		}
		try {
			PathUtils.validatePath(path);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"zk-lock.base-path '" + basePath + "' is not a valid ZooKeeper path: " + ex.getMessage(), ex);
		}
		if (path.equals("/")) {
			throw new IllegalArgumentException(
					"zk-lock.base-path must not be the root '/'; use a dedicated node such as /locks");
		}
		if (path.equals("/zookeeper") || path.startsWith("/zookeeper/")) {
			throw new IllegalArgumentException("zk-lock.base-path '" + basePath
					+ "' lies in ZooKeeper's reserved /zookeeper tree; use a dedicated node such as /locks");
		}
		return path;
	}

}

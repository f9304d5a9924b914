package dev.zklock.actuate;

import java.security.Principal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import dev.zklock.LockException;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.LockInfo;
import dev.zklock.core.LockRegistry;

/**
 * {@link Endpoint @Endpoint} that shows locks and, when allowed, revokes them.
 * {@code /locks} lists what this process holds and awaits, synchronously and
 * asynchronously (thread {@code async}), from local state, with the keys held
 * with local hand-off ({@code localHandoff}) and the last deadlocks this process
 * ended ({@code deadlocks}); {@code /locks/{name}}
 * reads ZooKeeper and shows, for each key of one lock name, the queue of
 * participants of every process in order, with each one's owner.
 * {@code DELETE /locks/{name}/{key}} revokes the current holders of a key, in any
 * process. Its default access is read-only, so the revocation needs
 * {@code management.endpoint.locks.access=unrestricted}.
 */
@Endpoint(id = "locks", defaultAccess = Access.READ_ONLY)
public class LocksEndpoint {

	private static final Comparator<LockDescriptor> ORDER = Comparator.comparing(LockDescriptor::name)
		.thenComparing(LockDescriptor::key, Comparator.nullsFirst(Comparator.naturalOrder()))
		.thenComparing(LockDescriptor::state)
		.thenComparing(LockDescriptor::since);

	private final Supplier<CuratorLockManager> lockManager;

	private final Supplier<AsyncLockManager> asyncLockManager;

	private final LockQueueReader queueReader;

	private volatile @Nullable Map<String, Object> clientDescription;

	/**
	 * Create a new endpoint for synchronous locks only.
	 * @param lockManager supplies the lock manager, or {@code null} when the
	 * application's manager is not a {@link CuratorLockManager}
	 * @param queueReader reads lock queues from ZooKeeper
	 */
	public LocksEndpoint(Supplier<CuratorLockManager> lockManager, LockQueueReader queueReader) {
		this(lockManager, () -> null, queueReader);
	}

	/**
	 * Create a new endpoint.
	 * @param lockManager supplies the lock manager, or {@code null} when the
	 * application's manager is not a {@link CuratorLockManager}
	 * @param asyncLockManager supplies the asynchronous lock manager, or
	 * {@code null} when there is none
	 * @param queueReader reads lock queues from ZooKeeper
	 */
	public LocksEndpoint(Supplier<CuratorLockManager> lockManager, Supplier<AsyncLockManager> asyncLockManager,
			LockQueueReader queueReader) {
		this.lockManager = Objects.requireNonNull(lockManager, "lockManager must not be null");
		this.asyncLockManager = Objects.requireNonNull(asyncLockManager, "asyncLockManager must not be null");
		this.queueReader = Objects.requireNonNull(queueReader, "queueReader must not be null");
	}

	/**
	 * Set which ZooKeeper client the locks use, reported as {@code client}: for example
	 * whether it is shared with the application, and which bean.
	 * @param clientDescription the description, or {@code null} for none
	 */
	public void setClientDescription(@Nullable Map<String, Object> clientDescription) {
		this.clientDescription = (clientDescription != null) ? Map.copyOf(clientDescription) : null;
	}

	/**
	 * The locks this process holds and awaits.
	 * @return the locks
	 */
	@ReadOperation
	public LocksDescriptor locks() {
		CuratorLockManager manager = this.lockManager.get();
		AsyncLockManager asyncManager = this.asyncLockManager.get();
		List<LockInfo> infos = new ArrayList<>();
		int held = 0;
		int waiting = 0;
		String basePath = (manager != null) ? manager.getBasePath()
				: (asyncManager != null) ? asyncManager.getBasePath() : null;
		for (LockRegistry registry : LockRegistry.distinct((manager != null) ? manager.getRegistry() : null,
				(asyncManager != null) ? asyncManager.getRegistry() : null)) {
			infos.addAll(registry.snapshot());
			held += registry.heldCount();
			waiting += registry.waitingCount();
		}
		List<LockDescriptor> locks = infos.stream().map(LockDescriptor::of).sorted(ORDER).toList();
		// from memory, so that the endpoint answers at once while ZooKeeper is down, and says so
		String unreachable = (manager != null && manager.getReachability().isUnreachable())
				? manager.getReachability().describe() : null;
		// an asynchronous manager of the same engine would count its hand-offs twice
		LocalHandoffDescriptor localHandoff = LocalHandoffDescriptor.of(
				(manager != null) ? manager.getLocalHandoffs() : null,
				(asyncManager != null && (manager == null || asyncManager.getRegistry() != manager.getRegistry()))
						? asyncManager.getLocalHandoffs() : null);
		List<DeadlockDescriptor> deadlocks = DeadlockDescriptor.of((manager != null) ? manager.getDeadlocks() : null,
				(asyncManager != null && (manager == null || asyncManager.getRegistry() != manager.getRegistry()))
						? asyncManager.getDeadlocks() : null);
		return new LocksDescriptor(basePath, held, waiting, locks, this.clientDescription, unreachable, localHandoff,
				deadlocks);
	}

	/**
	 * The queues of one lock name in ZooKeeper, for every process.
	 * @param name the lock name, treated as one path segment
	 * @return 200 with the queues; 404 when no lock of that name exists; 503 with
	 * the reason when ZooKeeper is unreachable or did not answer in time
	 */
	@ReadOperation
	public WebEndpointResponse<Object> lock(@Selector String name) {
		CuratorLockManager manager = this.lockManager.get();
		if (manager == null) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		if (manager.getReachability().isUnreachable()) {
			// answered from memory: reading would wait for Curator's reconnection
			return new WebEndpointResponse<>(LocksEndpointAnswers.unavailable(name, "Cannot read the queues of lock '"
					+ name + "': " + manager.getReachability().describe() + "; check zk-lock.connect-string"),
					WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
		}
		try {
			LockQueuesDescriptor queues = this.queueReader.read(manager.getBasePath(), name);
			return (queues != null) ? new WebEndpointResponse<>(queues, WebEndpointResponse.STATUS_OK)
					: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		catch (LockException ex) {
			return new WebEndpointResponse<>(LocksEndpointAnswers.unavailable(name, ex.getMessage()),
					WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
		}
	}

	/**
	 * Revoke the current holders of one key of a lock, in any process: their nodes
	 * are deleted, the next waiter gets the lock with a higher fencing token, and a
	 * connected holder learns it at once (reason {@code REVOKED}). For READ and
	 * SEMAPHORE every current holder goes, unless {@code node} names one.
	 * @param name the lock name
	 * @param key the key
	 * @param node the name of the one holder node to remove, or {@code null} for
	 * every current holder
	 * @param principal the caller, when authenticated
	 * @return 200 with what was removed; 404 when the lock, key, holder or node was
	 * not found; 409 when the holders changed meanwhile; 503 when ZooKeeper is not
	 * reachable (nothing removed but for 200)
	 */
	@DeleteOperation
	public WebEndpointResponse<Map<String, Object>> revoke(@Selector String name, @Selector String key,
			@Nullable String node, @Nullable Principal principal) {
		return LocksEndpointAnswers.revoke(this.lockManager.get(), name, key, node, principal);
	}

	/**
	 * Revoke the current holders of a lock without keys, as
	 * {@link #revoke(String, String, String, Principal)} does.
	 * @param name the lock name
	 * @param node the name of the one holder node to remove, or {@code null} for
	 * every current holder
	 * @param principal the caller, when authenticated
	 * @return what was removed, or why nothing was
	 */
	@DeleteOperation
	public WebEndpointResponse<Map<String, Object>> revokeWithoutKey(@Selector String name, @Nullable String node,
			@Nullable Principal principal) {
		return LocksEndpointAnswers.revoke(this.lockManager.get(), name, null, node, principal);
	}

	/**
	 * The locks of this process.
	 *
	 * @param basePath the path under which lock nodes live
	 * @param held the number of locks held, synchronously or asynchronously
	 * @param waiting the number of locks awaited (for asynchronous locks, the
	 * number of pending acquisitions)
	 * @param locks each lock held or awaited, per key
	 * @param client which ZooKeeper client the locks use, or {@code null} when not
	 * known
	 * @param unreachable while ZooKeeper is unreachable, what is unreachable and since
	 * when; {@code null} while it is reachable
	 * @param localHandoff the keys locked with local hand-off and the hand-off
	 * counts, or {@code null} when there is no lock manager
	 * @param deadlocks the last deadlocks this process ended by failing one of its
	 * waits, newest first, as many as {@code zk-lock.deadlock-detection.history}
	 */
	public record LocksDescriptor(@Nullable String basePath, int held, int waiting, List<LockDescriptor> locks,
			@Nullable Map<String, Object> client, @Nullable String unreachable,
			@Nullable LocalHandoffDescriptor localHandoff, List<DeadlockDescriptor> deadlocks) {

		/**
		 * Create a descriptor without deadlocks.
		 * @param basePath the path under which lock nodes live
		 * @param held the number of locks held
		 * @param waiting the number of locks awaited
		 * @param locks each lock held or awaited, per key
		 * @param client which ZooKeeper client the locks use, or {@code null}
		 * @param unreachable what is unreachable and since when, or {@code null}
		 * @param localHandoff the keys locked with local hand-off, or {@code null}
		 */
		public LocksDescriptor(@Nullable String basePath, int held, int waiting, List<LockDescriptor> locks,
				@Nullable Map<String, Object> client, @Nullable String unreachable,
				@Nullable LocalHandoffDescriptor localHandoff) {
			this(basePath, held, waiting, locks, client, unreachable, localHandoff, List.of());
		}

		/**
		 * Create a descriptor without local hand-off.
		 * @param basePath the path under which lock nodes live
		 * @param held the number of locks held
		 * @param waiting the number of locks awaited
		 * @param locks each lock held or awaited, per key
		 * @param client which ZooKeeper client the locks use, or {@code null}
		 * @param unreachable what is unreachable and since when, or {@code null}
		 */
		public LocksDescriptor(@Nullable String basePath, int held, int waiting, List<LockDescriptor> locks,
				@Nullable Map<String, Object> client, @Nullable String unreachable) {
			this(basePath, held, waiting, locks, client, unreachable, null, List.of());
		}

		/**
		 * Create a descriptor of a reachable ZooKeeper.
		 * @param basePath the path under which lock nodes live
		 * @param held the number of locks held
		 * @param waiting the number of locks awaited
		 * @param locks each lock held or awaited, per key
		 * @param client which ZooKeeper client the locks use, or {@code null}
		 */
		public LocksDescriptor(@Nullable String basePath, int held, int waiting, List<LockDescriptor> locks,
				@Nullable Map<String, Object> client) {
			this(basePath, held, waiting, locks, client, null, null, List.of());
		}

		/**
		 * Create a descriptor that does not say which client the locks use.
		 * @param basePath the path under which lock nodes live
		 * @param held the number of locks held
		 * @param waiting the number of locks awaited
		 * @param locks each lock held or awaited, per key
		 */
		public LocksDescriptor(@Nullable String basePath, int held, int waiting, List<LockDescriptor> locks) {
			this(basePath, held, waiting, locks, null, null, null, List.of());
		}

	}

	/**
	 * One lock this process holds or awaits, for one key.
	 *
	 * @param name the lock name
	 * @param key the key, {@code null} for a lock without keys
	 * @param path the ZooKeeper path of the lock
	 * @param mode the mode
	 * @param thread the name of the thread, {@code async} for a lock of an
	 * asynchronous method, which belongs to no thread
	 * @param threadId the id of the thread, 0 for an asynchronous lock
	 * @param since when the thread started waiting, or acquired the lock
	 * @param fencingToken the fencing token (creation zxid of the holder's node),
	 * {@code null} while waiting
	 * @param state {@code HELD}, {@code WAITING}, {@code IN_DOUBT} (the connection
	 * is suspended), {@code LOST} or {@code RELEASING}
	 * @param methodFinished whether the method (or work) that took the lock has
	 * finished while the lock stays held for its {@code minHold}
	 */
	public record LockDescriptor(String name, @Nullable String key, String path, String mode, String thread, long threadId,
			Instant since, @Nullable Long fencingToken, String state, boolean methodFinished) {

		static LockDescriptor of(LockInfo info) {
			return new LockDescriptor(info.name(), info.key(), info.path(), info.mode().name(), info.threadName(),
					info.threadId(), info.since(), (info.fencingToken() != 0) ? info.fencingToken() : null,
					info.state().name(), info.methodFinished());
		}

	}

}

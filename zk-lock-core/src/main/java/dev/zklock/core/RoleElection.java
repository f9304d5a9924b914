package dev.zklock.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.FencingToken;
import dev.zklock.LeaderElection;
import dev.zklock.LeadershipListener;
import dev.zklock.LeadershipRevocationReason;
import dev.zklock.LockException;

/**
 * The {@link LeaderElection} on the lock engine, without Spring. Each role is a
 * MUTEX lock named {@value #LOCK_NAME} keyed by the role: the candidates' nodes
 * queue under {@code <basePath>/zk-lock-leaders/<role>}, and the lowest one leads.
 * A candidate waits with an asynchronous acquisition without a deadline and keeps
 * the lock while it leads (a {@link LeadershipTerm}), so the engine's loss
 * handling, pause detection and owner data apply to leaders as to any holder, and
 * the node's creation zxid is the term's fencing token.
 * <p>
 * With the connection loss policy {@code SUSPENDED}, a suspension ends every
 * leadership and wait of this instance; a lost session, a new session or a deleted
 * node ends it under any policy ({@link LeadershipLosses}). The instance joins the
 * queue again, at the back, once the connection is back. An instance built as a
 * non-candidate never joins, but can still tell who leads.
 * <p>
 * An instance can {@linkplain #standAside(String) stand aside} from every role, or
 * from one, while a cause holds: it gives the leadership up as a yield does, stays
 * out of the queue, and joins again at the back once no cause holds.
 * <p>
 * Use: build it, {@link #addRole(String) add} roles, {@link #start() start} it;
 * {@link #stop(Duration) stop} and {@link #close() close} it before the lock
 * manager.
 */
public final class RoleElection implements LeaderElection {

	/**
	 * The lock name reserved for roles.
	 */
	public static final String LOCK_NAME = "zk-lock-leaders";

	private static final Logger logger = LoggerFactory.getLogger(RoleElection.class);

	private static final Duration RETRY_DELAY = Duration.ofSeconds(1);

	private final CuratorFramework client;

	private final AsyncLockManager locks;

	private final boolean candidate;

	private final boolean interruptOnLoss;

	private final Map<String, RoleCandidacy> candidacies = new ConcurrentHashMap<>();

	private final ScheduledExecutorService executor;

	private final RoleCandidacy.Listener changes;

	private final LeadershipLosses losses;

	// causes to stand aside from every role, given to each candidacy, even one added later (under asideLock)
	private final Set<String> asideForAll = new LinkedHashSet<>();

	// not a monitor, as everywhere in the engine
	private final ReentrantLock asideLock = new ReentrantLock();

	private volatile boolean running;

	// the application is closing: waits end and no lock is taken, so a failed join is not retried
	private volatile boolean closing;

	/**
	 * Create a new election.
	 * @param client the client the lock manager uses
	 * @param locks the asynchronous view of the lock engine
	 * @param listener told about every grant and revocation
	 * @param candidate whether this instance competes for its roles
	 * @param interruptOnLoss whether to interrupt the threads that
	 * {@linkplain LeadershipTerm#enter() entered} a term when it is lost
	 */
	public RoleElection(CuratorFramework client, AsyncLockManager locks, LeadershipListener listener,
			boolean candidate, boolean interruptOnLoss) {
		this.client = Objects.requireNonNull(client, "client must not be null");
		this.locks = Objects.requireNonNull(locks, "locks must not be null");
		Objects.requireNonNull(listener, "listener must not be null");
		this.candidate = candidate;
		this.interruptOnLoss = interruptOnLoss;
		this.executor = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "zk-lock-leader");
			thread.setDaemon(true);
			return thread;
		});
		this.losses = new LeadershipLosses(this.candidacies, this::isJoining,
				(candidacy) -> execute(candidacy::rejoin, Duration.ZERO));
		this.changes = new LeadershipChanges(listener, this::retryLater, new LeaderNodeStamp(client));
		// not through a bean: the election is built after the lock manager
		locks.addLockLossListener((lock, reason) -> this.losses.lockLost(client, lock, reason));
	}

	/**
	 * Take part in a role: at once when the election runs, else when it starts.
	 * @param role a role name
	 * @throws IllegalArgumentException when the name cannot be a role
	 */
	public void addRole(String role) {
		String problem = RoleNames.problem(role);
		if (problem != null) {
			throw new IllegalArgumentException("Cannot take part in role '" + role + "': " + problem);
		}
		RoleCandidacy candidacy;
		this.asideLock.lock();
		try {
			candidacy = this.candidacies.computeIfAbsent(role, (name) -> {
				RoleCandidacy created = new RoleCandidacy(name, this.locks, this.changes, this.interruptOnLoss);
				this.asideForAll.forEach(created::standAside);
				return created;
			});
		}
		finally {
			this.asideLock.unlock();
		}
		if (isJoining()) {
			candidacy.join();
		}
	}

	/**
	 * Join the queue of every role.
	 */
	public void start() {
		this.running = true;
		this.client.getConnectionStateListenable().addListener(this.losses, this.executor);
		if (this.candidate) {
			this.asideLock.lock();
			try {
				if (!this.asideForAll.isEmpty()) {
					logger.info("Roles {} are joined once this instance no longer stands aside for: {}", roles(),
							this.asideForAll);
				}
			}
			finally {
				this.asideLock.unlock();
			}
			this.candidacies.values().forEach(RoleCandidacy::join);
		}
	}

	/**
	 * Stand aside from every role, those added later included, while the cause
	 * holds: give up the roles this instance leads (each node goes once the threads
	 * that entered its term have left it, with a {@code YIELDED} revocation) and
	 * leave the queues.
	 * @param cause why, as it is logged, such as
	 * {@code "readiness not ACCEPTING_TRAFFIC"}
	 */
	public void standAside(String cause) {
		this.asideLock.lock();
		try {
			if (this.asideForAll.add(cause)) {
				this.candidacies.values().forEach((candidacy) -> candidacy.standAside(cause));
			}
		}
		finally {
			this.asideLock.unlock();
		}
	}

	/**
	 * The cause given to {@link #standAside(String)} is over: each role joins again,
	 * at the back, unless another cause holds for it.
	 * @param cause the cause
	 */
	public void standAgain(String cause) {
		this.asideLock.lock();
		try {
			if (this.asideForAll.remove(cause)) {
				this.candidacies.values().forEach((candidacy) -> candidacy.standAgain(cause));
			}
		}
		finally {
			this.asideLock.unlock();
		}
	}

	/**
	 * Stand aside from one role while the cause holds, as
	 * {@link #standAside(String)} does for every role; no-op when it already does
	 * for this cause.
	 * @param role a role this instance takes part in
	 * @param cause why, as it is logged
	 * @throws IllegalArgumentException when the role is not one of {@link #roles()}
	 */
	public void standAside(String role, String cause) {
		candidacy(role).standAside(cause);
	}

	/**
	 * The cause given to {@link #standAside(String, String)} is over for the role;
	 * no-op when it did not hold.
	 * @param role a role this instance takes part in
	 * @param cause the cause
	 * @throws IllegalArgumentException when the role is not one of {@link #roles()}
	 */
	public void standAgain(String role, String cause) {
		candidacy(role).standAgain(cause);
	}

	/**
	 * The roles this instance stands aside from, and why.
	 * @return the causes by role, only of roles with at least one
	 */
	public Map<String, Set<String>> standingAside() {
		Map<String, Set<String>> aside = new TreeMap<>();
		this.candidacies.forEach((role, candidacy) -> {
			Set<String> causes = candidacy.asideCauses();
			if (!causes.isEmpty()) {
				aside.put(role, causes);
			}
		});
		return aside;
	}

	/**
	 * The application begins to close: the lock engine ends the waits under way and
	 * takes no new lock, so candidates stop joining; leaders lead on until
	 * {@link #stop(Duration)}.
	 */
	public void beginShutdown() {
		this.closing = true;
	}

	/**
	 * Give every role up, deleting this instance's nodes so that the next
	 * candidates lead at once.
	 * @param timeout how long to wait for the nodes to be deleted
	 */
	public void stop(Duration timeout) {
		this.running = false;
		this.client.getConnectionStateListenable().removeListener(this.losses);
		List<CompletableFuture<Void>> releases = new ArrayList<>();
		for (RoleCandidacy candidacy : this.candidacies.values()) {
			releases.add(candidacy.leave(LeadershipRevocationReason.SHUTDOWN));
		}
		try {
			CompletableFuture.allOf(releases.toArray(new CompletableFuture<?>[0]))
				.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (TimeoutException | ExecutionException ex) {
			logger.warn("Could not confirm that the leader nodes of roles {} were deleted on shutdown; the next "
					+ "candidates lead once this session ends", roles(), ex);
		}
	}

	/**
	 * Stop the election's thread.
	 */
	public void close() {
		this.executor.shutdownNow();
	}

	/**
	 * Whether the election runs.
	 * @return whether it was started and not stopped
	 */
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public Set<String> roles() {
		return new TreeSet<>(this.candidacies.keySet());
	}

	@Override
	public boolean isLeader(String role) {
		return candidacy(role).isLeader();
	}

	@Override
	public Optional<FencingToken> fencingToken(String role) {
		LeadershipTerm term = candidacy(role).term();
		return (term != null && term.isHeld()) ? Optional.of(new FencingToken(term.fencingToken())) : Optional.empty();
	}

	@Override
	public boolean awaitLeadership(String role, Duration timeout) throws InterruptedException {
		return candidacy(role).await(timeout);
	}

	@Override
	public Optional<String> currentLeader(String role) {
		String queue = this.locks.getBasePath() + "/" + LockPaths.encode(LOCK_NAME) + "/" + LockPaths.encode(role);
		try {
			List<String> holders = LockNodeNames.holders(this.client.getChildren().forPath(queue));
			if (holders.isEmpty()) {
				return Optional.empty();
			}
			byte[] data = this.client.getData().forPath(queue + "/" + holders.get(0));
			return Optional.of(new String(data, StandardCharsets.UTF_8));
		}
		catch (KeeperException.NoNodeException ex) {
			// no queue, or the leader left between the listing and the read: nobody leads for sure right now
			return Optional.empty();
		}
		catch (Exception ex) {
			throw new LockException("Could not read the leader of role '" + role + "' from " + queue
					+ "; check the ZooKeeper connection and try again", ex);
		}
	}

	@Override
	public boolean yieldLeadership(String role) {
		return candidacy(role).yieldLeadership();
	}

	/**
	 * The leadership of a role this instance holds, for sure or not.
	 * @param role a role name
	 * @return the term, or {@code null} when this instance does not lead the role or
	 * does not take part in it
	 */
	public @Nullable LeadershipTerm term(String role) {
		RoleCandidacy candidacy = this.candidacies.get(role);
		return (candidacy != null) ? candidacy.term() : null;
	}

	/**
	 * Why this instance stands aside from a role.
	 * @param role a role this instance takes part in
	 * @return the causes, empty while it competes
	 * @throws IllegalArgumentException when the role is not one of {@link #roles()}
	 */
	public Set<String> asideCauses(String role) {
		return candidacy(role).asideCauses();
	}

	/**
	 * The lock manager's base path, where the roles' queues live below
	 * {@value #LOCK_NAME}.
	 * @return the base path
	 */
	public String getBasePath() {
		return this.locks.getBasePath();
	}

	private void retryLater(RoleCandidacy candidacy, @Nullable Throwable failure) {
		// the shutdown drain ends the waits before this election is stopped: nothing to retry, nothing to report
		if (!this.running || this.closing || this.locks.isShuttingDown()) {
			return;
		}
		logger.warn("Could not join the queue of role '{}' (lock '{}' key '{}'); trying again in {}", candidacy.role(),
				LOCK_NAME, candidacy.role(), RETRY_DELAY, failure);
		execute(candidacy::rejoin, RETRY_DELAY);
	}

	private boolean isJoining() {
		return this.running && this.candidate && !this.closing;
	}

	private RoleCandidacy candidacy(String role) {
		RoleCandidacy candidacy = this.candidacies.get(role);
		if (candidacy == null) {
			throw new IllegalArgumentException("This instance takes no part in role '" + role + "'; its roles are "
					+ roles() + ". Declare it with @Leader(\"" + role + "\") or zk-lock.leader.roles, or without Spring "
					+ "with RoleElection.addRole");
		}
		return candidacy;
	}

	private void execute(Runnable task, Duration delay) {
		try {
			this.executor.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			logger.debug("Leader election closed; not running {}", task);
		}
	}

}

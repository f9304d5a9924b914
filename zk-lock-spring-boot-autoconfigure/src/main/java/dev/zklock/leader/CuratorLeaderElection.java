package dev.zklock.leader;

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

import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.ApplicationEventPublisher;

import dev.zklock.FencingToken;
import dev.zklock.LeaderElection;
import dev.zklock.LeadershipRevocationReason;
import dev.zklock.actuate.LockQueueReader;
import dev.zklock.actuate.LockQueuesDescriptor;
import dev.zklock.core.AsyncLockManager;

/**
 * The {@link LeaderElection} on zk-lock's lock engine. Each role is a MUTEX lock
 * named {@value #LOCK_NAME} keyed by the role: the candidates' nodes queue under
 * {@code <basePath>/zk-lock-leaders/<role>}, and the lowest one leads. A candidate
 * waits with an asynchronous acquisition without a deadline and keeps the lock
 * while it leads, so the engine's loss handling, pause detection and owner data
 * apply to leaders as to any holder.
 * <p>
 * With the connection loss policy {@code SUSPENDED}, a suspension ends every
 * leadership and wait of this instance; a lost session, a new session or a
 * deleted node ends it under any policy. The engine watches every node held
 * for a while, so a node deleted by another client (a revocation) ends the leadership at once. The instance joins the queue again, at
 * the back, once the connection is back. An instance built as a non-candidate
 * never joins, but can still tell who leads.
 * <p>
 * An instance can {@linkplain #standAside(String) stand aside} from every role,
 * or from one, while a cause holds, such as readiness or a health group: it gives
 * the leadership up as a yield does, stays out of the queue, and joins again at the
 * back once no cause holds.
 */
public final class CuratorLeaderElection implements LeaderElection {

	/**
	 * The lock name reserved for roles.
	 */
	public static final String LOCK_NAME = "zk-lock-leaders";

	private static final Logger logger = LoggerFactory.getLogger(CuratorLeaderElection.class);

	private static final Duration RETRY_DELAY = Duration.ofSeconds(1);

	private final CuratorFramework client;

	private final AsyncLockManager locks;

	private final LockQueueReader queueReader;

	private final boolean candidate;

	private final boolean interruptOnLoss;

	private final Map<String, RoleCandidacy> candidacies = new ConcurrentHashMap<>();

	private final ScheduledExecutorService executor;

	private final RoleCandidacy.Listener events;

	private final LeadershipLosses losses;

	// causes to stand aside from every role, given to each candidacy, including those added later
	private final Set<String> asideForAll = new LinkedHashSet<>();

	private volatile boolean running;

	// the application is closing: waits end and no lock is taken, so a failed join is not retried
	private volatile boolean closing;

	/**
	 * Create a new election.
	 * @param client the client the lock manager uses
	 * @param locks the asynchronous view of the lock engine
	 * @param publisher publishes the leadership events
	 * @param candidate whether this instance competes for its roles
	 * ({@code zk-lock.leader.enabled})
	 * @param interruptOnLoss whether to interrupt the threads running
	 * {@code @Leader} methods when the leadership is lost
	 */
	public CuratorLeaderElection(CuratorFramework client, AsyncLockManager locks, ApplicationEventPublisher publisher,
			boolean candidate, boolean interruptOnLoss) {
		this.client = Objects.requireNonNull(client, "client must not be null");
		this.locks = Objects.requireNonNull(locks, "locks must not be null");
		this.queueReader = new LockQueueReader(client);
		this.candidate = candidate;
		this.interruptOnLoss = interruptOnLoss;
		this.executor = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "zk-lock-leader");
			thread.setDaemon(true);
			return thread;
		});
		this.losses = new LeadershipLosses(this.candidacies, this::isJoining,
				(candidacy) -> execute(candidacy::rejoin, Duration.ZERO));
		this.events = new LeadershipEvents(this, publisher, this::retryLater, new LeaderNodeStamp(client));
		// not a LockLossListener bean, which the lock manager it depends on would collect
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
		synchronized (this.asideForAll) {
			candidacy = this.candidacies.computeIfAbsent(role, (name) -> {
				RoleCandidacy created = new RoleCandidacy(name, this.locks, this.events, this.interruptOnLoss);
				this.asideForAll.forEach(created::standAside);
				return created;
			});
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
			synchronized (this.asideForAll) {
				if (!this.asideForAll.isEmpty()) {
					logger.info("Roles {} are joined once this instance no longer stands aside for: {}", roles(),
							this.asideForAll);
				}
			}
			this.candidacies.values().forEach(RoleCandidacy::join);
		}
	}

	/**
	 * Stand aside from every role, those added later included, while the cause
	 * holds: give up the roles this instance leads (their nodes go once the running
	 * {@code @Leader} methods have returned, with a {@code YIELDED} revocation) and
	 * leave the queues.
	 * @param cause why, as it is logged, such as
	 * {@code "readiness not ACCEPTING_TRAFFIC"}
	 */
	public void standAside(String cause) {
		synchronized (this.asideForAll) {
			if (this.asideForAll.add(cause)) {
				this.candidacies.values().forEach((candidacy) -> candidacy.standAside(cause));
			}
		}
	}

	/**
	 * The cause given to {@link #standAside(String)} is over: each role joins again,
	 * at the back, unless another cause holds for it.
	 * @param cause the cause
	 */
	public void standAgain(String cause) {
		synchronized (this.asideForAll) {
			if (this.asideForAll.remove(cause)) {
				this.candidacies.values().forEach((candidacy) -> candidacy.standAgain(cause));
			}
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
		RoleCandidacy candidacy = candidacy(role);
		boolean leading = candidacy.await(timeout);
		Set<String> aside = candidacy.asideCauses();
		if (!leading && aside.contains(LeadershipReadiness.CAUSE)) {
			// the surprise of a runner that waits for leadership at startup
			logger.warn("Waited {} in vain to lead role '{}': this instance stands aside for {}. Spring Boot reports "
					+ "readiness ACCEPTING_TRAFFIC only after ApplicationRunners, CommandLineRunners and "
					+ "ApplicationReadyEvent listeners, so waiting for leadership in them fails while "
					+ "zk-lock.leadership.follow-readiness is on; start the work from a LeadershipGrantedEvent listener",
					timeout, role, aside);
		}
		return leading;
	}

	@Override
	public Optional<String> currentLeader(String role) {
		LockQueuesDescriptor queues = this.queueReader.read(this.locks.getBasePath(), LOCK_NAME);
		if (queues == null) {
			return Optional.empty();
		}
		for (LockQueuesDescriptor.KeyQueue queue : queues.keys()) {
			if (role.equals(queue.key()) && !queue.participants().isEmpty()) {
				return Optional.ofNullable(queue.participants().get(0).owner());
			}
		}
		return Optional.empty();
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
	@Nullable LeadershipTerm term(String role) {
		RoleCandidacy candidacy = this.candidacies.get(role);
		return (candidacy != null) ? candidacy.term() : null;
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
					+ roles() + ". Declare it with @Leader(\"" + role + "\") or zk-lock.leader.roles");
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

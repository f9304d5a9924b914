package dev.zklock.leader;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.ApplicationEventPublisher;

import dev.zklock.FencingToken;
import dev.zklock.LeaderElection;
import dev.zklock.actuate.LockQueueReader;
import dev.zklock.actuate.LockQueuesDescriptor;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.LeadershipTerm;
import dev.zklock.core.RoleElection;

/**
 * The {@link LeaderElection} bean: the core's {@link RoleElection} (the queues,
 * terms, fencing tokens, losses and yields), with what Spring adds to it. Its
 * grants and revocations are published as {@code LeadershipGrantedEvent} and
 * {@code LeadershipRevokedEvent}, {@link #currentLeader(String)} reads the queue as
 * the {@code leaders} endpoint does, and a wait for leadership that cannot succeed
 * because the application is not ready says why.
 */
public final class CuratorLeaderElection implements LeaderElection {

	/**
	 * The lock name reserved for roles.
	 */
	public static final String LOCK_NAME = RoleElection.LOCK_NAME;

	private static final Logger logger = LoggerFactory.getLogger(CuratorLeaderElection.class);

	private final RoleElection election;

	private final LockQueueReader queueReader;

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
		this.election = new RoleElection(client, locks, new LeadershipEvents(this, publisher), candidate,
				interruptOnLoss);
		this.queueReader = new LockQueueReader(client);
	}

	/**
	 * Take part in a role: at once when the election runs, else when it starts.
	 * @param role a role name
	 * @throws IllegalArgumentException when the name cannot be a role
	 */
	public void addRole(String role) {
		this.election.addRole(role);
	}

	/**
	 * Join the queue of every role.
	 */
	public void start() {
		this.election.start();
	}

	/**
	 * Stand aside from every role while the cause holds; see
	 * {@link RoleElection#standAside(String)}.
	 * @param cause why, as it is logged
	 */
	public void standAside(String cause) {
		this.election.standAside(cause);
	}

	/**
	 * The cause given to {@link #standAside(String)} is over.
	 * @param cause the cause
	 */
	public void standAgain(String cause) {
		this.election.standAgain(cause);
	}

	/**
	 * Stand aside from one role while the cause holds.
	 * @param role a role this instance takes part in
	 * @param cause why, as it is logged
	 * @throws IllegalArgumentException when the role is not one of {@link #roles()}
	 */
	public void standAside(String role, String cause) {
		this.election.standAside(role, cause);
	}

	/**
	 * The cause given to {@link #standAside(String, String)} is over for the role.
	 * @param role a role this instance takes part in
	 * @param cause the cause
	 * @throws IllegalArgumentException when the role is not one of {@link #roles()}
	 */
	public void standAgain(String role, String cause) {
		this.election.standAgain(role, cause);
	}

	/**
	 * The roles this instance stands aside from, and why.
	 * @return the causes by role, only of roles with at least one
	 */
	public Map<String, Set<String>> standingAside() {
		return this.election.standingAside();
	}

	/**
	 * The application begins to close; see {@link RoleElection#beginShutdown()}.
	 */
	public void beginShutdown() {
		this.election.beginShutdown();
	}

	/**
	 * Give every role up, deleting this instance's nodes so that the next
	 * candidates lead at once.
	 * @param timeout how long to wait for the nodes to be deleted
	 */
	public void stop(Duration timeout) {
		this.election.stop(timeout);
	}

	/**
	 * Stop the election's thread.
	 */
	public void close() {
		this.election.close();
	}

	/**
	 * Whether the election runs.
	 * @return whether it was started and not stopped
	 */
	public boolean isRunning() {
		return this.election.isRunning();
	}

	@Override
	public Set<String> roles() {
		return this.election.roles();
	}

	@Override
	public boolean isLeader(String role) {
		return this.election.isLeader(role);
	}

	@Override
	public Optional<FencingToken> fencingToken(String role) {
		return this.election.fencingToken(role);
	}

	@Override
	public boolean awaitLeadership(String role, Duration timeout) throws InterruptedException {
		boolean leading = this.election.awaitLeadership(role, timeout);
		Set<String> aside = this.election.asideCauses(role);
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
		LockQueuesDescriptor queues = this.queueReader.read(this.election.getBasePath(), LOCK_NAME);
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
		return this.election.yieldLeadership(role);
	}

	/**
	 * The leadership of a role this instance holds, for sure or not.
	 * @param role a role name
	 * @return the term, or {@code null} when this instance does not lead the role or
	 * does not take part in it
	 */
	@Nullable LeadershipTerm term(String role) {
		return this.election.term(role);
	}

	/**
	 * The lock manager's base path, where the roles' queues live below
	 * {@value #LOCK_NAME}.
	 * @return the base path
	 */
	public String getBasePath() {
		return this.election.getBasePath();
	}

}

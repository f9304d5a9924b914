package dev.zklock.schedules;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;

import dev.zklock.FencingToken;
import dev.zklock.LeadershipListener;
import dev.zklock.LeadershipRevocationReason;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.RoleElection;
import dev.zklock.schedules.Schedule.Lead;
import dev.zklock.schedules.Schedule.LeadExit;

/**
 * Runs a leader step of a schedule on the calling worker thread: join the role at the
 * back of its queue, wait for the leadership, do leader work (fenced writes with the
 * term's token while the client believes it leads), end it with a yield or a change of
 * readiness, and leave the queue. Each client has one core election
 * ({@link #election}), which records every term it announces. The unsafe control
 * ({@code trusting}) keeps working as the leader for {@link #KEPT_AFTER_YIELD} after
 * it yields or its readiness goes down, and records that time as a term.
 */
final class LeaderSteps {

	/** The one role of the schedules. */
	static final String ROLE = "r";

	/** The fenced store's key of the leader work. */
	static final String LOCK_KEY = RoleElection.LOCK_NAME + "/" + ROLE;

	/** How often a leader writes. */
	static final Duration WORK_INTERVAL = Duration.ofMillis(100);

	/** How long the unsafe control goes on as the leader after it gave the role up. */
	static final Duration KEPT_AFTER_YIELD = Duration.ofMillis(1_500);

	/** What the control's extra term is recorded as. */
	static final String KEPT = "kept leading after a yield";

	// a client stands aside between its leader steps, so that it is in the queue only while a step runs
	private static final String IDLE = "no leader step";

	private static final String NOT_READY = "readiness REFUSING_TRAFFIC";

	private final ScheduleClient client;

	private final History history;

	private final FencedStore store;

	private final boolean trusting;

	LeaderSteps(ScheduleClient client, History history, FencedStore store, boolean trusting) {
		this.client = client;
		this.history = history;
		this.store = store;
		this.trusting = trusting;
	}

	/**
	 * A client's election of {@link #ROLE}, started, standing aside until a leader
	 * step runs; every term it announces goes into the history.
	 * @param index the client
	 * @param curator its client
	 * @param locks its engine
	 * @param history where terms go
	 * @return the election
	 */
	static RoleElection election(int index, CuratorFramework curator, AsyncLockManager locks, History history) {
		RoleElection election = new RoleElection(curator, locks, new TermRecorder(index, history), true, false);
		election.addRole(ROLE);
		election.standAside(ROLE, IDLE);
		election.start();
		return election;
	}

	void lead(int id, Lead step) throws InterruptedException {
		RoleElection election = this.client.leaders;
		long joined = System.nanoTime();
		election.standAgain(ROLE, IDLE);
		try {
			boolean leads = election.awaitLeadership(ROLE, Duration.ofMillis(step.waitMillis()));
			long token = election.fencingToken(ROLE).map(FencingToken::value).orElse(-1L);
			if (leads && token >= 0) {
				work(id, token, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(step.leadMillis()));
			}
			if (step.exit() == LeadExit.YIELD && leads) {
				long yielded = System.nanoTime();
				if (election.yieldLeadership(ROLE) && this.trusting) {
					keepLeading(id, token, yielded);
				}
			}
			else if (step.exit() == LeadExit.READINESS) {
				long aside = System.nanoTime();
				this.history.candidacy(new History.Candidacy(this.client.index, ROLE, joined, aside));
				election.standAside(ROLE, NOT_READY);
				if (leads && this.trusting) {
					keepLeading(id, token, aside);
				}
				StepRunner.paceUntil(aside + TimeUnit.MILLISECONDS.toNanos(step.asideMillis()));
				joined = System.nanoTime();
				election.standAgain(ROLE, NOT_READY);
			}
		}
		finally {
			this.history.candidacy(new History.Candidacy(this.client.index, ROLE, joined, System.nanoTime()));
			election.standAside(ROLE, IDLE);
		}
	}

	// a careful leader writes only while its election says it leads; the control writes on regardless
	private void work(int id, long token, long end) {
		for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
			if (!this.trusting && !this.client.leaders.isLeader(ROLE)) {
				return;
			}
			this.store.write(id, LOCK_KEY, token);
			StepRunner.paceUntil(Math.min(end, now + WORK_INTERVAL.toNanos()));
		}
	}

	private void keepLeading(int id, long token, long from) {
		long end = from + KEPT_AFTER_YIELD.toNanos();
		work(id, token, end);
		this.history.term(new History.Term(this.client.index, ROLE, token, from, System.nanoTime(), KEPT));
	}

	/** Records each term a client's election announces, from its grant to its revocation. */
	private static final class TermRecorder implements LeadershipListener {

		private final int client;

		private final History history;

		private final Map<Long, Long> started = new ConcurrentHashMap<>();

		TermRecorder(int client, History history) {
			this.client = client;
			this.history = history;
		}

		@Override
		public void granted(String role, long fencingToken, Instant since) {
			this.started.put(fencingToken, System.nanoTime());
		}

		@Override
		public void revoked(String role, long fencingToken, LeadershipRevocationReason reason) {
			long now = System.nanoTime();
			Long start = this.started.remove(fencingToken);
			this.history.term(new History.Term(this.client, role, fencingToken, (start != null) ? start : now, now,
					reason.name()));
		}

	}

}

package dev.zklock.schedules;

import java.io.Serializable;
import java.util.function.Consumer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.zklock.annotation.LockMode;

/**
 * What the clients of one schedule saw, in monotonic nanoseconds of this JVM: every
 * acquisition's invocation and outcome, every hold from grant to the release or the
 * loss its holder saw, every fenced write, every fault, every revoke and deletion of
 * a holder's node, and what was left once the schedule had quiesced. Thread-safe
 * while recording; read by {@link HistoryChecker}.
 */
final class History implements Serializable {

	private static final long serialVersionUID = 1L;

	/** The timeout of an operation without a deadline: a release. */
	static final long NO_DEADLINE = -1;

	/** How an acquisition ended. */
	enum Outcome {

		GRANTED, TIMED_OUT, GIVEN_UP, FAILED, HUNG

	}

	/**
	 * One acquisition.
	 * @param id the step's number in the schedule
	 * @param client the client that asked
	 * @param description what was asked, for reports
	 * @param timeoutNanos the request's timeout, or {@link #NO_DEADLINE}
	 * @param invoked when it was asked
	 * @param completed when the caller had its answer
	 * @param outcome the answer
	 * @param givenUp when the caller gave up waiting (interrupt or cancel), or -1
	 * @param failure the exception of a failed acquisition, or {@code null}
	 */
	record Op(int id, int client, String description, long timeoutNanos, long invoked, long completed,
			Outcome outcome, long givenUp, String failure) implements Serializable {
	}

	/**
	 * One hold of one key, from the grant its holder saw to its release, or to the
	 * loss it saw.
	 * @param chain the step whose holder this is; nested holds of one step share it
	 * @param client the holder's client
	 * @param name the lock's name
	 * @param key the key
	 * @param mode the lock's mode
	 * @param permits the permits of a semaphore, else 1
	 * @param token the fencing token of the key
	 * @param start when the grant was seen
	 * @param end when the holder released, or saw the loss
	 * @param lost whether the hold ended by a loss the holder saw
	 * @param reason why it was lost, or {@code null}
	 * @param heldAtGrant whether {@code isHeld()} said so right after the grant
	 */
	record Hold(int chain, int client, String name, String key, LockMode mode, int permits, long token, long start,
			long end, boolean lost, String reason, boolean heldAtGrant) implements Serializable {

		boolean exclusive() {
			return this.mode == LockMode.MUTEX || this.mode == LockMode.WRITE;
		}

		String lockKey() {
			return this.name + "/" + this.key;
		}

	}

	/**
	 * A write a holder sent to the fenced store.
	 * @param chain the writer's step
	 * @param lockKey the lock and key written
	 * @param token the token sent
	 * @param at when the store decided
	 * @param accepted whether the store took it
	 */
	record Write(int chain, String lockKey, long token, long at, boolean accepted) implements Serializable {
	}

	/**
	 * A fault as injected.
	 * @param kind what it was
	 * @param client the client it hit, or -1 for the server
	 * @param start when it began
	 * @param end when it was healed (equal to start for an instant fault)
	 * @param applied whether it could be injected at all
	 */
	record Fault(Schedule.FaultKind kind, int client, long start, long end, boolean applied) implements Serializable {
	}

	/**
	 * A granted exclusive acquisition of one key, for the check of the queue's order.
	 * @param id the step
	 * @param lockKey the lock and key
	 * @param invoked when it was asked
	 * @param granted when it was granted
	 */
	record Grant(int id, String lockKey, long invoked, long granted) implements Serializable {
	}

	/**
	 * An acquisition of one key in MUTEX, READ or WRITE mode, granted or not, for the
	 * rules of local hand-off: whose it was, whether it went through its client's
	 * local queue, and how long it waited.
	 * @param id the step
	 * @param client the client that asked
	 * @param lockKey the lock and key
	 * @param mode the mode
	 * @param localHandoff whether it asked for local hand-off
	 * @param invoked when it was asked
	 * @param completed when the caller had its answer
	 * @param granted whether it was granted
	 */
	record Ask(int id, int client, String lockKey, LockMode mode, boolean localHandoff, long invoked, long completed,
			boolean granted) implements Serializable {
	}

	/**
	 * A time a client's connection was down, as Curator reported it: from SUSPENDED
	 * or LOST until CONNECTED or RECONNECTED.
	 * @param client the client
	 * @param start when it went down
	 * @param end when it was back, or {@link Long#MAX_VALUE}
	 */
	record Outage(int client, long start, long end) implements Serializable {
	}

	/**
	 * A hold as it begins, so that a process killed while holding still leaves a
	 * record of it: the hold then ends at the kill. Sent again the moment its holder
	 * sees it lost, with that moment as its end: a step records its hold only when it
	 * is done with it, which may come long after (a nested lock first), and a kill
	 * meanwhile must not make a loss its holder saw a hold until the kill.
	 * @param hold the hold, its end not known yet ({@code -1}), or ended by the loss
	 * its holder saw ({@link Hold#lost()})
	 */
	record Held(Hold hold) implements Serializable {
	}

	/**
	 * A write a holder in a client process sends to the fenced store of the test JVM.
	 * @param chain the writer's step
	 * @param lockKey the lock and key
	 * @param token the token sent
	 */
	record WriteRequest(int chain, String lockKey, long token) implements Serializable {
	}

	// every record also goes here as it is made: a client process streams them to the test JVM
	private final transient Consumer<Object> sink;

	/** A history kept in this JVM only. */
	History() {
		this((event) -> {
		});
	}

	/**
	 * A history that also hands every record to a sink as it is made.
	 * @param sink the sink, called on the recording thread
	 */
	History(Consumer<Object> sink) {
		this.sink = sink;
	}

	private final List<Op> ops = Collections.synchronizedList(new ArrayList<>());

	private final List<Hold> holds = Collections.synchronizedList(new ArrayList<>());

	private final List<Write> writes = Collections.synchronizedList(new ArrayList<>());

	private final List<Fault> faults = Collections.synchronizedList(new ArrayList<>());

	private final List<Grant> grants = Collections.synchronizedList(new ArrayList<>());

	// null in a history saved before local hand-off, read again by a later checker
	private final List<Ask> asks = Collections.synchronizedList(new ArrayList<>());

	/**
	 * A gap in a client's pause detector's clock longer than its pause threshold: a
	 * simulated pause, or a real stall of this JVM.
	 * @param client the client
	 * @param start when the gap began
	 * @param end when the detector's clock was read again
	 */
	record Pause(int client, long start, long end) implements Serializable {
	}

	/**
	 * An operator's revoke of a key.
	 * @param lockKey the lock and key
	 * @param start when it was asked
	 * @param end when it returned
	 */
	record Revocation(String lockKey, long start, long end) implements Serializable {
	}

	/**
	 * A holder's node deleted with a plain ZooKeeper delete, outside the engine.
	 * @param lockKey the lock and key
	 * @param node the deleted node's name
	 * @param token its creation zxid: the fencing token of the hold it was
	 * @param start when the step began to look for it
	 * @param end when the delete returned
	 */
	record Deletion(String lockKey, String node, long token, long start, long end) implements Serializable {
	}

	/**
	 * A leadership of the role as one client believed it: from the grant its
	 * election announced to the revocation; or, for the control that keeps leading
	 * after a yield, from the yield to its last write.
	 * @param client the client
	 * @param role the role
	 * @param token the term's fencing token
	 * @param start when it began
	 * @param end when it ended
	 * @param reason the revocation's reason, or what the control did
	 */
	record Term(int client, String role, long token, long start, long end, String reason) implements Serializable {
	}

	/**
	 * A time a client was eligible for the role: in its queue, not standing aside.
	 * @param client the client
	 * @param role the role
	 * @param start when it joined
	 * @param end when it stood aside or left
	 */
	record Candidacy(int client, String role, long start, long end) implements Serializable {
	}

	// null in a history saved before leadership was in the schedules
	private final List<Term> terms = Collections.synchronizedList(new ArrayList<>());

	private final List<Candidacy> candidacies = Collections.synchronizedList(new ArrayList<>());

	private final List<Revocation> revocations = Collections.synchronizedList(new ArrayList<>());

	private final List<Deletion> deletions = Collections.synchronizedList(new ArrayList<>());

	private final List<Outage> outages = Collections.synchronizedList(new ArrayList<>());

	private final List<Pause> pauses = Collections.synchronizedList(new ArrayList<>());

	private final List<String> leftovers = Collections.synchronizedList(new ArrayList<>());

	/**
	 * A hold begins, or its holder sees it lost; only a client process's sink hears
	 * of it.
	 * @param held the hold, its end not known yet, or the loss its holder saw
	 */
	void held(Held held) {
		this.sink.accept(held);
	}

	void op(Op op) {
		this.ops.add(op);
		this.sink.accept(op);
	}

	void hold(Hold hold) {
		this.holds.add(hold);
		this.sink.accept(hold);
	}

	void write(Write write) {
		this.writes.add(write);
		this.sink.accept(write);
	}

	void fault(Fault fault) {
		this.faults.add(fault);
		this.sink.accept(fault);
	}

	void grant(Grant grant) {
		this.grants.add(grant);
		this.sink.accept(grant);
	}

	void ask(Ask ask) {
		this.asks.add(ask);
		this.sink.accept(ask);
	}

	void revocation(Revocation revocation) {
		this.revocations.add(revocation);
		this.sink.accept(revocation);
	}

	void deletion(Deletion deletion) {
		this.deletions.add(deletion);
		this.sink.accept(deletion);
	}

	void pause(Pause pause) {
		this.pauses.add(pause);
		this.sink.accept(pause);
	}

	void outage(Outage outage) {
		this.outages.add(outage);
		this.sink.accept(outage);
	}

	void term(Term term) {
		this.terms.add(term);
		this.sink.accept(term);
	}

	void candidacy(Candidacy candidacy) {
		this.candidacies.add(candidacy);
		this.sink.accept(candidacy);
	}

	/**
	 * Something left once the schedule quiesced: a lock node on the server, or a
	 * registry entry of a client.
	 * @param leftover what it is, for the report
	 */
	void leftover(String leftover) {
		this.leftovers.add(leftover);
		this.sink.accept(leftover);
	}

	List<Op> ops() {
		return copy(this.ops);
	}

	List<Hold> holds() {
		return copy(this.holds);
	}

	List<Write> writes() {
		return copy(this.writes);
	}

	List<Fault> faults() {
		return copy(this.faults);
	}

	List<Grant> grants() {
		return copy(this.grants);
	}

	List<Ask> asks() {
		return (this.asks != null) ? copy(this.asks) : List.of();
	}

	List<Revocation> revocations() {
		return copy(this.revocations);
	}

	List<Deletion> deletions() {
		return copy(this.deletions);
	}

	List<Pause> pauses() {
		return copy(this.pauses);
	}

	List<Outage> outages() {
		return copy(this.outages);
	}

	List<String> leftovers() {
		return copy(this.leftovers);
	}

	/**
	 * One wait of a nested acquisition ({@link Schedule.Nested}), outer or inner, from
	 * its ask to its answer, with the thread and process that waited: what a deadlock's
	 * report names a member by (#42).
	 * @param id the step
	 * @param client the client that asked
	 * @param process the process id of its JVM
	 * @param thread the name of the thread that waited
	 * @param lockKey the lock and key
	 * @param mode the mode
	 * @param start when it was asked
	 * @param end when the caller had its answer
	 * @param granted whether it was granted
	 */
	record NestedWait(int id, int client, long process, String thread, String lockKey, LockMode mode, long start,
			long end, boolean granted) implements Serializable {
	}

	/**
	 * A member of a deadlock as a {@code LockDeadlockException} reports it: a waiter of
	 * one of its edges.
	 * @param process the waiter's process id
	 * @param thread the waiter's thread name
	 * @param waitsFor the lock and key it waits for
	 */
	record CycleMember(long process, String thread, String waitsFor) implements Serializable {
	}

	/**
	 * A nested acquisition that failed with a {@code LockDeadlockException}: chosen as
	 * the victim of a cycle.
	 * @param id the step
	 * @param client the client that asked
	 * @param lockKey the lock and key it waited for
	 * @param at when its caller had the exception
	 * @param members the cycle's members, as the exception reports them
	 */
	record DeadlockFailure(int id, int client, String lockKey, long at, List<CycleMember> members)
			implements Serializable {
	}

	private final List<NestedWait> nestedWaits = Collections.synchronizedList(new ArrayList<>());

	private final List<DeadlockFailure> deadlockFailures = Collections.synchronizedList(new ArrayList<>());

	void nestedWait(NestedWait wait) {
		this.nestedWaits.add(wait);
		this.sink.accept(wait);
	}

	void deadlockFailure(DeadlockFailure failure) {
		this.deadlockFailures.add(failure);
		this.sink.accept(failure);
	}

	// empty in a history saved before nested acquisitions
	List<NestedWait> nestedWaits() {
		return (this.nestedWaits != null) ? copy(this.nestedWaits) : List.of();
	}

	List<DeadlockFailure> deadlockFailures() {
		return (this.deadlockFailures != null) ? copy(this.deadlockFailures) : List.of();
	}

	List<Term> terms() {
		return (this.terms != null) ? copy(this.terms) : List.of();
	}

	List<Candidacy> candidacies() {
		return (this.candidacies != null) ? copy(this.candidacies) : List.of();
	}

	private static <T> List<T> copy(List<T> list) {
		synchronized (list) {
			return List.copyOf(list);
		}
	}

}

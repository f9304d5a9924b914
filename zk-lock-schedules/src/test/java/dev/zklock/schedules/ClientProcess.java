package dev.zklock.schedules;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.zklock.schedules.History.Hold;
import dev.zklock.schedules.Schedule.FaultStep;
import dev.zklock.testsupport.JvmProcess;

/**
 * The test JVM's side of a {@link ScheduleClientMain}: launches it as a user of the
 * firewall, puts what it streams into the schedule's history (its fenced writes into
 * the test JVM's store), and kills, stops and resumes it. The holds it had begun
 * when it was killed end at the kill, or at the loss their holder saw before it.
 */
final class ClientProcess implements AutoCloseable {

	private static final Duration ANSWER = Duration.ofSeconds(30);

	final int index;

	private final JvmProcess process;

	private final History history;

	private final FencedStore store;

	// holds begun and not yet recorded
	private final OpenHolds open = new OpenHolds();

	private final CountDownLatch ready = new CountDownLatch(1);

	private final BlockingQueue<List<String>> registries = new ArrayBlockingQueue<>(1);

	private volatile CountDownLatch done = new CountDownLatch(0);

	private volatile long killedAt = -1;

	ClientProcess(int index, String basePath, List<Integer> memberPorts, boolean trusting, int uid, Path directory,
			History history, FencedStore store) {
		this.index = index;
		this.history = history;
		this.store = store;
		this.process = JvmProcess.builder("schedule client " + index, ScheduleClientMain.class.getName())
			.directory(directory)
			.logFileName("client-" + index + ".log")
			.arguments(List.of(String.valueOf(index), basePath,
					memberPorts.stream().map(String::valueOf).collect(Collectors.joining(",")), String.valueOf(trusting)))
			.outputListener(this::line)
			.runAs(uid)
			.build();
		this.process.start();
	}

	/** Wait until the client is connected and warm. */
	void awaitReady() throws InterruptedException {
		if (!this.ready.await(ANSWER.toMillis(), TimeUnit.MILLISECONDS)) {
			throw new IllegalStateException("Schedule client " + this.index + " did not start: "
					+ this.process.diagnostics());
		}
	}

	/**
	 * Run this client's steps of a schedule.
	 * @param schedule the schedule
	 * @param start when it starts, in {@link System#nanoTime()}
	 */
	void run(Schedule schedule, long start) {
		long workers = ClientSteps.byWorker(schedule)
			.keySet()
			.stream()
			.filter((worker) -> worker.startsWith("c" + this.index + "/"))
			.count();
		this.done = new CountDownLatch((int) workers);
		this.process.send("run " + Serialized.encode(new ScheduleClientMain.RunOrder(schedule, start)));
	}

	/**
	 * Wait until every worker of this client is done, or killed.
	 * @param deadline {@link System#nanoTime()} to wait until
	 * @return whether they are
	 */
	boolean awaitDone(long deadline) throws InterruptedException {
		return this.done.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
	}

	/** Inject a fault of the client's own connection, in its process. */
	void fault(FaultStep fault) {
		if (isAlive()) {
			this.process.send("fault " + Serialized.encode(fault));
		}
	}

	boolean isAlive() {
		return this.killedAt < 0 && this.process.isAlive();
	}

	/** {@code kill -9}: the process is gone for the rest of the schedule. */
	void kill() {
		this.killedAt = System.nanoTime();
		this.process.kill();
		for (long left = this.done.getCount(); left > 0; left--) {
			this.done.countDown();
		}
	}

	void pause() {
		this.process.pause();
	}

	void resume() {
		if (this.process.isPaused()) {
			this.process.resume();
		}
	}

	/** Heal the proxy of a live client. */
	void heal() {
		if (isAlive()) {
			resume();
			this.process.send("heal");
		}
	}

	/**
	 * What the client's registry still lists; nothing once it was killed.
	 * @return the entries
	 */
	List<String> registryEntries() throws InterruptedException {
		if (!isAlive()) {
			return List.of();
		}
		this.process.send("registry");
		List<String> entries = this.registries.poll(ANSWER.toMillis(), TimeUnit.MILLISECONDS);
		if (entries == null) {
			return List.of("c" + this.index + " registry: no answer");
		}
		return entries;
	}

	/**
	 * End the holds the kill cut short, once the process's output is all read: at
	 * the loss their holder saw, if it saw one before the kill, else at the kill.
	 */
	void endKilledHolds() {
		if (this.killedAt >= 0) {
			this.open.endAt(this.killedAt).forEach(this.history::hold);
		}
	}

	@Override
	public void close() {
		if (isAlive()) {
			resume();
			this.process.send("exit");
			this.process.awaitExit(ANSWER);
		}
		else {
			this.process.kill();
		}
	}

	private void line(String line) {
		if (line.equals("ready")) {
			this.ready.countDown();
		}
		else if (line.startsWith("done ")) {
			this.done.countDown();
		}
		else if (line.startsWith("registry ")) {
			this.registries.offer(new ArrayList<>(Serialized.<List<String>>decode(line.substring(9))));
		}
		else if (line.startsWith("ev ")) {
			record(Serialized.decode(line.substring(3)));
		}
	}

	private void record(Object event) {
		if (event instanceof History.Held held) {
			this.open.held(held);
		}
		else if (event instanceof Hold hold) {
			this.open.recorded(hold);
			this.history.hold(hold);
		}
		else if (event instanceof History.WriteRequest write) {
			this.store.write(write.chain(), write.lockKey(), write.token());
		}
		else if (event instanceof History.Op op) {
			this.history.op(op);
		}
		else if (event instanceof History.Grant grant) {
			this.history.grant(grant);
		}
		else if (event instanceof History.Ask ask) {
			this.history.ask(ask);
		}
		else if (event instanceof History.Fault fault) {
			this.history.fault(fault);
		}
		else if (event instanceof History.Outage outage) {
			this.history.outage(outage);
		}
		else if (event instanceof History.Pause pause) {
			this.history.pause(pause);
		}
		else if (event instanceof History.Revocation revocation) {
			this.history.revocation(revocation);
		}
		else if (event instanceof History.NestedWait wait) {
			this.history.nestedWait(wait);
		}
		else if (event instanceof History.DeadlockFailure failure) {
			this.history.deadlockFailure(failure);
		}
		else if (event instanceof History.Term term) {
			this.history.term(term);
		}
		else if (event instanceof History.Candidacy candidacy) {
			this.history.candidacy(candidacy);
		}
		else if (event instanceof String leftover) {
			this.history.leftover(leftover);
		}
	}

}

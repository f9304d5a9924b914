package dev.zklock.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

import dev.zklock.testsupport.JvmProcess;

/**
 * A {@link LockWorker} in its own JVM, seen from the test: send it commands, wait for
 * its events, kill, pause or resume it.
 */
final class WorkerProcess implements AutoCloseable {

	/**
	 * Worker JVM options: a small heap, serial GC, C1 only.
	 */
	static final List<String> JVM_OPTIONS = List.of("-Xmx128m", "-Xss512k", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData");

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

	private final String id;

	private final JvmProcess process;

	private final List<WorkerEvent> events = new ArrayList<>();

	private WorkerProcess(String id, Path directory, List<String> arguments, int uid) {
		this.id = id;
		JvmProcess.Builder builder = JvmProcess.builder("worker " + id, LockWorker.class.getName())
			.directory(directory)
			.logFileName("worker-" + id + ".log")
			.arguments(arguments)
			.jvmOptions(JVM_OPTIONS)
			.outputListener(this::onOutput);
		if (uid >= 0) {
			builder.runAs(uid);
		}
		this.process = builder.build();
	}

	/**
	 * Launch a worker; call {@link #awaitReady()} before sending it commands.
	 * @param id the worker's id
	 * @param directory where its log goes
	 * @param connectString the ZooKeeper connection string
	 * @param resource the protected resource, see {@link ResourceClient#connect(String)}
	 * @param settings further {@code --name=value} arguments
	 * @return the launched worker
	 */
	static WorkerProcess launch(String id, Path directory, String connectString, String resource,
			Map<String, String> settings) {
		return launch(id, directory, connectString, resource, settings, -1);
	}

	/**
	 * Launch a worker as the given user, see {@link JvmProcess.Builder#runAs(int)}.
	 * @param id the worker's id
	 * @param directory where its log goes
	 * @param connectString the ZooKeeper connection string
	 * @param resource the protected resource, see {@link ResourceClient#connect(String)}
	 * @param settings further {@code --name=value} arguments
	 * @param uid the user id, -1 to run as the test JVM's user
	 * @return the launched worker
	 */
	static WorkerProcess launch(String id, Path directory, String connectString, String resource,
			Map<String, String> settings, int uid) {
		List<String> arguments = new ArrayList<>(
				List.of("--id=" + id, "--connect=" + connectString, "--resource=" + resource));
		settings.forEach((name, value) -> arguments.add("--" + name + "=" + value));
		WorkerProcess worker = new WorkerProcess(id, directory, arguments, uid);
		worker.process.start();
		return worker;
	}

	String id() {
		return this.id;
	}

	/**
	 * Wait until the worker's application has started and connected.
	 * @return the {@code ready} event
	 */
	WorkerEvent awaitReady() {
		return await("ready", this.id, READY_TIMEOUT);
	}

	void send(String command) {
		this.process.send(command);
	}

	/**
	 * Wait for the first event of the given type and id that arrived since the worker
	 * started and was not consumed before, and consume it.
	 * @param type the event type
	 * @param id the event's id
	 * @param timeout the longest wait
	 * @return the event
	 * @throws IllegalStateException when the worker reports an error for the id, dies,
	 * or the timeout passes
	 */
	WorkerEvent await(String type, String id, Duration timeout) {
		return await((event) -> event.type().equals(type) && id.equals(event.id()), type + " " + id, timeout, id);
	}

	/**
	 * Wait for the first unconsumed event that matches, and consume it.
	 * @param wanted which event
	 * @param description what is awaited, for the error message
	 * @param timeout the longest wait
	 * @return the event
	 */
	WorkerEvent await(Predicate<WorkerEvent> wanted, String description, Duration timeout) {
		return await(wanted, description, timeout, "");
	}

	private WorkerEvent await(Predicate<WorkerEvent> wanted, String description, Duration timeout, String id) {
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this.events) {
			while (true) {
				for (int i = 0; i < this.events.size(); i++) {
					WorkerEvent event = this.events.get(i);
					if (wanted.test(event)) {
						this.events.remove(i);
						return event;
					}
					if (event.type().equals("error") && (id.equals(event.id()) || event.id() == null)) {
						throw new IllegalStateException("Worker " + this.id + " failed while the test waited for "
								+ description + ": " + event + "\n" + this.process.diagnostics());
					}
				}
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0 || !this.process.isAlive()) {
					if (this.process.isAlive() && !this.process.isPaused()) {
						this.process.send("dump");
					}
					throw new IllegalStateException("Timed out after " + timeout.toMillis() + " ms waiting for "
							+ description + " from worker " + this.id + "; unconsumed events " + this.events + "\n"
							+ this.process.diagnostics());
				}
				try {
					// wake up now and then to notice a worker that died
					this.events.wait(Math.max(1, Math.min(200, remaining / 1_000_000)));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("Interrupted while waiting for " + description, ex);
				}
			}
		}
	}

	/**
	 * Wait for the first unconsumed event that matches and consume it, or give up
	 * quietly.
	 * @param wanted which event
	 * @param timeout the longest wait
	 * @return the event, empty when none came in time
	 */
	Optional<WorkerEvent> poll(Predicate<WorkerEvent> wanted, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this.events) {
			while (true) {
				for (int i = 0; i < this.events.size(); i++) {
					if (wanted.test(this.events.get(i))) {
						return Optional.of(this.events.remove(i));
					}
				}
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					return Optional.empty();
				}
				try {
					this.events.wait(Math.max(1, Math.min(200, remaining / 1_000_000)));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return Optional.empty();
				}
			}
		}
	}

	/**
	 * Events of a type received so far and not consumed, without consuming them.
	 * @param type the event type
	 * @param id the event's id
	 * @return the events
	 */
	List<WorkerEvent> peek(String type, String id) {
		synchronized (this.events) {
			return this.events.stream().filter((event) -> event.type().equals(type) && id.equals(event.id())).toList();
		}
	}

	long pid() {
		return this.process.pid();
	}

	void kill() {
		this.process.kill();
	}

	/**
	 * Launch the worker again after it was killed, with the same arguments, and wait
	 * until it is ready.
	 * @return the new {@code ready} event
	 */
	WorkerEvent relaunch() {
		this.process.start();
		return awaitReady();
	}

	boolean isPaused() {
		return this.process.isPaused();
	}

	void pause() {
		this.process.pause();
	}

	void resume() {
		this.process.resume();
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	String diagnostics() {
		return this.process.diagnostics();
	}

	/**
	 * Ask the worker to exit, killing it when it does not within a few seconds.
	 */
	@Override
	public void close() {
		if (this.process.isAlive()) {
			if (this.process.isPaused()) {
				this.process.resume();
			}
			try {
				this.process.send("exit");
				this.process.awaitExit(Duration.ofSeconds(10));
			}
			catch (IllegalStateException ex) {
				this.process.kill();
			}
		}
	}

	@Override
	public String toString() {
		return "worker " + this.id;
	}

	private void onOutput(String line) {
		if (!line.startsWith(WorkerEvents.PREFIX)) {
			return;
		}
		WorkerEvent event = WorkerEvent.parse(line, System.nanoTime());
		synchronized (this.events) {
			this.events.add(event);
			this.events.notifyAll();
		}
	}

}

package dev.zklock.testsupport;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A ZooKeeper server process and the worker JVMs of a multi-process test, as a JUnit
 * extension registered on a static field: the server starts before the class's first
 * test and is closed after its last; the workers that a test starts log into a
 * directory of the test's own and are killed after it.
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * static final ZooKeeperWorkers workers = new ZooKeeperWorkers();
 *
 * &#64;Test
 * void exclusion() {
 *     workers.start("a", Worker.class, List.of("--connect=" + workers.connectString()), events::add);
 *     workers.sendAll("go");
 * }
 * </pre>
 */
public final class ZooKeeperWorkers implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

	private final List<String> jvmOptions;

	private final Map<String, JvmProcess> workers = new LinkedHashMap<>();

	private @Nullable ZooKeeperProcess server;

	private @Nullable Path directory;

	/**
	 * Workers with the default JVM options ({@code -Xmx96m}, serial GC, C1 only).
	 */
	public ZooKeeperWorkers() {
		this(JvmProcess.DEFAULT_JVM_OPTIONS);
	}

	/**
	 * Workers with the given JVM options.
	 * @param jvmOptions the options of every worker JVM
	 */
	public ZooKeeperWorkers(List<String> jvmOptions) {
		this.jvmOptions = List.copyOf(jvmOptions);
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.server = ZooKeeperProcess.builder().start();
	}

	@Override
	public synchronized void afterEach(ExtensionContext context) {
		this.workers.values().forEach(JvmProcess::kill);
		this.workers.clear();
		if (this.directory != null) {
			Directories.deleteRecursively(this.directory);
			this.directory = null;
		}
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (this.server != null) {
			this.server.close();
			this.server = null;
		}
	}

	/**
	 * The server process.
	 * @return the server
	 * @throws IllegalStateException outside the test class's run
	 */
	public ZooKeeperProcess server() {
		ZooKeeperProcess current = this.server;
		if (current == null) {
			throw new IllegalStateException("No server: register ZooKeeperWorkers on a static field with "
					+ "@RegisterExtension and use it in tests only");
		}
		return current;
	}

	/**
	 * The server's connection string.
	 * @return the connection string
	 */
	public String connectString() {
		return server().connectString();
	}

	/**
	 * Launch a worker JVM, logging to {@code worker-<id>.log}.
	 * @param id the worker's id, unique in the test
	 * @param mainClass its main class, on the test class path
	 * @param arguments its arguments
	 * @param output receives every line of its output
	 * @return the started worker
	 */
	public synchronized JvmProcess start(String id, Class<?> mainClass, List<String> arguments,
			Consumer<String> output) {
		if (this.workers.containsKey(id)) {
			throw new IllegalArgumentException("A worker " + id + " runs already");
		}
		Path logs = this.directory;
		if (logs == null) {
			logs = Directories.createTemporary("zk-lock-workers-");
			this.directory = logs;
		}
		JvmProcess worker = JvmProcess.builder(mainClass.getSimpleName() + " " + id, mainClass.getName())
			.directory(logs)
			.logFileName("worker-" + id + ".log")
			.arguments(arguments)
			.jvmOptions(this.jvmOptions)
			.outputListener(output)
			.build();
		this.workers.put(id, worker);
		worker.start();
		return worker;
	}

	/**
	 * The worker with the given id.
	 * @param id the id
	 * @return the worker
	 * @throws IllegalArgumentException when the test started no such worker
	 */
	public synchronized JvmProcess worker(String id) {
		JvmProcess worker = this.workers.get(id);
		if (worker == null) {
			throw new IllegalArgumentException("No worker " + id + "; the test started " + this.workers.keySet());
		}
		return worker;
	}

	/**
	 * The ids of the test's workers, in the order they were started.
	 * @return the ids
	 */
	public synchronized List<String> ids() {
		return List.copyOf(this.workers.keySet());
	}

	/**
	 * The number of workers the test started.
	 * @return the count
	 */
	public synchronized int size() {
		return this.workers.size();
	}

	/**
	 * Send a command line to every worker.
	 * @param command the command
	 */
	public synchronized void sendAll(String command) {
		this.workers.values().forEach((worker) -> worker.send(command));
	}

}

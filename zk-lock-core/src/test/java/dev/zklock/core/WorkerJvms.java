package dev.zklock.core;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import dev.zklock.testsupport.JvmProcess;

/**
 * The application JVMs of one multi-process test: each started with small-heap
 * options, its output handed to one listener, its log in the test's directory, and
 * every one killed on {@link #close()}.
 */
final class WorkerJvms implements AutoCloseable {

	private static final List<String> JVM_OPTIONS = List.of("-Xmx96m", "-Xss512k", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData");

	private final Path directory;

	private final Consumer<String> output;

	private final Map<String, JvmProcess> workers = new LinkedHashMap<>();

	WorkerJvms(Path directory, Consumer<String> output) {
		this.directory = directory;
		this.output = output;
	}

	/**
	 * Start a worker JVM.
	 * @param id the worker's id, which names its log file
	 * @param mainClass its main class
	 * @param arguments its arguments
	 */
	void start(String id, Class<?> mainClass, List<String> arguments) {
		JvmProcess worker = JvmProcess.builder(mainClass.getSimpleName() + " " + id, mainClass.getName())
			.directory(this.directory)
			.logFileName("worker-" + id + ".log")
			.arguments(arguments)
			.jvmOptions(JVM_OPTIONS)
			.outputListener(this.output)
			.build();
		this.workers.put(id, worker);
		worker.start();
	}

	/**
	 * Send a command to every worker.
	 */
	void sendAll(String command) {
		this.workers.values().forEach((worker) -> worker.send(command));
	}

	int size() {
		return this.workers.size();
	}

	@Override
	public void close() {
		this.workers.values().forEach(JvmProcess::kill);
	}

}

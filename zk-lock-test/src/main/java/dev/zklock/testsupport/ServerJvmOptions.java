package dev.zklock.testsupport;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The options of a ZooKeeper server that runs in a JVM of its own: those of every
 * server plus the JVM's options.
 *
 * @param <B> the builder type, returned by each option for chaining
 */
public abstract class ServerJvmOptions<B extends ServerJvmOptions<B>> extends ServerOptions<B> {

	private List<String> jvmOptions = JvmProcess.DEFAULT_JVM_OPTIONS;

	ServerJvmOptions(Duration tickTime, Duration startupTimeout) {
		super(tickTime, startupTimeout);
	}

	/**
	 * The options of the server's JVM, replacing the defaults ({@code -Xmx96m}, serial
	 * GC, C1 only).
	 * @param jvmOptions the JVM options
	 * @return this builder
	 */
	@SuppressWarnings("unchecked")
	public B jvmOptions(List<String> jvmOptions) {
		this.jvmOptions = List.copyOf(jvmOptions);
		return (B) this;
	}

	/**
	 * Write the server's {@code zoo.cfg} into its directory and prepare its process.
	 * @param name the process's name, for logs and error messages
	 * @param mainClass the ZooKeeper main class
	 * @param directory the server's directory
	 * @param config the configuration to write
	 * @return the process's builder, for more options
	 */
	JvmProcess.Builder process(String name, String mainClass, Path directory, ZooKeeperConfig config) {
		Path configFile = directory.resolve("zoo.cfg");
		config.writeTo(configFile);
		return JvmProcess.builder(name, mainClass)
			.directory(directory)
			.logFileName("server.log")
			.arguments(List.of(configFile.toString()))
			.jvmOptions(this.jvmOptions)
			.systemProperties(sweepProperties());
	}

}

package dev.zklock.testsupport;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * A ZooKeeper server in a JVM of its own, a standalone {@link ZooKeeperProcess} or a
 * {@link ZooKeeperEnsemble.Member}: what can be done to its process and what it reports.
 * It listens on 127.0.0.1 only and keeps its data directory across restarts.
 */
public abstract class ZooKeeperServerJvm {

	private final JvmProcess server;

	private final int clientPort;

	private final Path dataDirectory;

	private final Duration startupTimeout;

	ZooKeeperServerJvm(JvmProcess server, int clientPort, Path dataDirectory, Duration startupTimeout) {
		this.server = server;
		this.clientPort = clientPort;
		this.dataDirectory = dataDirectory;
		this.startupTimeout = startupTimeout;
	}

	/**
	 * A connection string to this server alone, {@code 127.0.0.1:port}.
	 * @return the connection string
	 */
	public String connectString() {
		return "127.0.0.1:" + this.clientPort;
	}

	/**
	 * The process id of the server's JVM, the current one after a restart.
	 * @return the pid
	 */
	public long pid() {
		return this.server.pid();
	}

	/**
	 * The data directory, kept across restarts.
	 * @return the data directory
	 */
	public Path dataDirectory() {
		return this.dataDirectory;
	}

	/**
	 * The file that receives the server's output, appended to across restarts.
	 * @return the log file
	 */
	public Path logFile() {
		return this.server.logFile();
	}

	/**
	 * Whether the server's process is alive, paused or not.
	 * @return whether it is alive
	 */
	public boolean isRunning() {
		return this.server.isAlive();
	}

	/**
	 * Whether the server is paused.
	 * @return whether it is paused
	 */
	public boolean isPaused() {
		return this.server.isPaused();
	}

	/**
	 * The mode that {@code srvr} reports, {@link ServerMode#UNREACHABLE} when the server
	 * is not running or is paused.
	 * @return the mode
	 */
	public ServerMode mode() {
		return (isRunning() && !isPaused()) ? FourLetterWords.mode(this.clientPort) : ServerMode.UNREACHABLE;
	}

	/**
	 * Kill the server with SIGKILL ({@code kill -9}) and wait until its process has gone.
	 */
	public void kill() {
		this.server.kill();
	}

	/**
	 * Stop the server with SIGTERM and wait until its process has gone.
	 */
	public void stop() {
		this.server.stop();
	}

	/**
	 * Freeze the server with SIGSTOP: connections stay open but nothing is answered, as
	 * in a long GC pause.
	 */
	public void pause() {
		this.server.pause();
	}

	/**
	 * Let a paused server go on with SIGCONT. Does not wait: call
	 * {@link #awaitServing()} to wait until it answers again.
	 */
	public void resume() {
		this.server.resume();
	}

	/**
	 * Wait until the server serves clients.
	 */
	public abstract void awaitServing();

	/**
	 * The client port on 127.0.0.1.
	 * @return the port
	 */
	public int clientPort() {
		return this.clientPort;
	}

	void launchIfNotRunning() {
		if (!this.server.isAlive()) {
			this.server.start();
		}
	}

	void awaitMode(Predicate<ServerMode> serving) {
		ServerReadiness.await(this, this.startupTimeout, this::mode, serving, this.server);
	}

	String diagnostics() {
		return this.server.diagnostics();
	}

	// the clients connected to the server, empty when it does not answer
	String connections() {
		try {
			return FourLetterWords.send(this.clientPort, "cons");
		}
		catch (IOException ex) {
			return "";
		}
	}

}

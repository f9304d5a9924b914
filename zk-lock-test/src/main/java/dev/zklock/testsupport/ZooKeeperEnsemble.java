package dev.zklock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;

/**
 * An ensemble of ZooKeeper servers, each in its own JVM
 * ({@code org.apache.zookeeper.server.quorum.QuorumPeerMain} with its own
 * {@code zoo.cfg} and {@code myid}), launched with the test JVM's java binary and class
 * path. All ports are on 127.0.0.1. Any {@link Member} can be killed
 * ({@code kill -9}), paused ({@code SIGSTOP}), resumed and started again; the ensemble
 * tells which member leads and which member a client session is connected to.
 * {@link #close()} kills every member and deletes their directories.
 *
 * <pre class="code">
 * try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder().tickTime(Duration.ofMillis(500)).start()) {
 *     Member leader = ensemble.leader();
 *     leader.kill();
 *     ensemble.awaitQuorum();
 * }
 * </pre>
 */
public final class ZooKeeperEnsemble implements AutoCloseable {

	private static final String MAIN_CLASS = "org.apache.zookeeper.server.quorum.QuorumPeerMain";

	private final Path directory;

	private final Duration startupTimeout;

	private final List<Member> members;

	private ZooKeeperEnsemble(Builder builder) {
		this.directory = Directories.createTemporary("zk-lock-ensemble-");
		this.startupTimeout = builder.startupTimeout;
		List<int[]> ports = new ArrayList<>();
		for (int id = 1; id <= builder.size; id++) {
			ports.add(new int[] { FreePorts.next(), FreePorts.next(), FreePorts.next() });
		}
		Map<String, String> servers = new LinkedHashMap<>();
		for (int id = 1; id <= builder.size; id++) {
			int[] memberPorts = ports.get(id - 1);
			servers.put("server." + id, "127.0.0.1:" + memberPorts[1] + ":" + memberPorts[2]);
		}
		List<Member> created = new ArrayList<>();
		for (int id = 1; id <= builder.size; id++) {
			created.add(new Member(id, ports.get(id - 1), servers, builder));
		}
		this.members = List.copyOf(created);
	}

	/**
	 * A builder of an ensemble, three members by default.
	 * @return the builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * The connection string that lists every member.
	 * @return the connection string
	 */
	public String connectString() {
		return this.members.stream().map(Member::connectString).collect(Collectors.joining(","));
	}

	/**
	 * The members, by id.
	 * @return the members
	 */
	public List<Member> members() {
		return this.members;
	}

	/**
	 * The member with the given {@code myid}.
	 * @param id the id, from 1
	 * @return the member
	 */
	public Member member(int id) {
		if (id < 1 || id > this.members.size()) {
			throw new IllegalArgumentException(
					"No member " + id + ": the ensemble has members 1 to " + this.members.size());
		}
		return this.members.get(id - 1);
	}

	/**
	 * Wait until the ensemble has a quorum and return its leader.
	 * @return the leader
	 */
	public Member leader() {
		awaitQuorum();
		return this.members.stream()
			.filter((member) -> member.mode() == ServerMode.LEADER)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("The leader went away; modes: " + modes()));
	}

	/**
	 * Wait until every running, unpaused member serves and exactly one of them leads.
	 */
	public void awaitQuorum() {
		Poll.until("a quorum with one leader", this.startupTimeout, this::hasQuorum,
				() -> "Modes: " + modes() + "\n" + this.members.stream()
					.map((member) -> member.server.diagnostics())
					.collect(Collectors.joining("\n")));
	}

	/**
	 * The member that the session with the given id is connected to, found with the
	 * {@code cons} four-letter word.
	 * @param sessionId the session id
	 * @return the member, empty when no running member lists the session
	 */
	public Optional<Member> memberConnectedTo(long sessionId) {
		String marker = "sid=0x" + Long.toHexString(sessionId) + ",";
		return this.members.stream()
			.filter((member) -> member.isRunning() && !member.isPaused())
			.filter((member) -> member.connections().contains(marker))
			.findFirst();
	}

	/**
	 * The member that a Curator client is connected to.
	 * @param client the client
	 * @return the member, empty when the client is not connected
	 */
	public Optional<Member> memberConnectedTo(CuratorFramework client) {
		try {
			return memberConnectedTo(client.getZookeeperClient().getZooKeeper().getSessionId());
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not read the session id of " + client, ex);
		}
	}

	/**
	 * The mode of every member, such as {@code {1=FOLLOWER, 2=LEADER, 3=FOLLOWER}}.
	 * @return the modes by member id
	 */
	public Map<Integer, ServerMode> modes() {
		Map<Integer, ServerMode> modes = new LinkedHashMap<>();
		this.members.forEach((member) -> modes.put(member.id(), member.mode()));
		return modes;
	}

	/**
	 * Kill every member and delete their directories.
	 */
	@Override
	public void close() {
		this.members.forEach((member) -> member.server.kill());
		Directories.deleteRecursively(this.directory);
	}

	@Override
	public String toString() {
		return "ZooKeeperEnsemble[" + connectString() + "]";
	}

	private boolean hasQuorum() {
		int leaders = 0;
		for (Member member : this.members) {
			if (member.isRunning() && !member.isPaused()) {
				ServerMode mode = member.mode();
				if (!mode.isServing()) {
					return false;
				}
				if (mode == ServerMode.LEADER) {
					leaders++;
				}
			}
		}
		return leaders == 1;
	}

	private void start() {
		this.members.forEach(Member::start);
		awaitQuorum();
	}

	/**
	 * One server of the ensemble.
	 */
	public final class Member {

		private final int id;

		private final int clientPort;

		private final int quorumPort;

		private final int electionPort;

		private final int uid;

		private final Path dataDirectory;

		private final JvmProcess server;

		private Member(int id, int[] ports, Map<String, String> servers, Builder builder) {
			this.id = id;
			this.clientPort = ports[0];
			this.quorumPort = ports[1];
			this.electionPort = ports[2];
			int clientPort = this.clientPort;
			Path memberDirectory = Directories.create(ZooKeeperEnsemble.this.directory.resolve("member-" + id));
			this.dataDirectory = Directories.create(memberDirectory.resolve("data"));
			writeMyId();
			ZooKeeperConfig.server(builder.tickTime, this.dataDirectory.toString(), clientPort)
				.set("initLimit", "10")
				.set("syncLimit", "5")
				.set("reconfigEnabled", "false")
				.setAll(servers)
				.setAll(builder.settings)
				.writeTo(memberDirectory.resolve("zoo.cfg"));
			JvmProcess.Builder process = JvmProcess
				.builder("ensemble member " + id + " (client port " + clientPort + ")", MAIN_CLASS)
				.directory(memberDirectory)
				.logFileName("server.log")
				.arguments(List.of(memberDirectory.resolve("zoo.cfg").toString()))
				.jvmOptions(builder.jvmOptions)
				.systemProperties(builder.systemProperties());
			this.uid = (builder.firewall != null) ? builder.firewall.uid("ensemble member " + id) : -1;
			if (this.uid >= 0) {
				process.runAs(this.uid);
				handOver(memberDirectory, this.uid);
			}
			this.server = process.build();
		}

		// ZooKeeper checks access(2) on its data directory, which ignores capabilities
		private static void handOver(Path directory, int uid) {
			try (Stream<Path> paths = Files.walk(directory)) {
				Files.setPosixFilePermissions(directory.getParent(), PosixFilePermissions.fromString("rwxr-xr-x"));
				for (Path path : paths.toList()) {
					Files.setAttribute(path, "unix:uid", uid);
					Files.setAttribute(path, "unix:gid", uid);
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not hand " + directory + " over to user " + uid, ex);
			}
		}

		/**
		 * The member's {@code myid}.
		 * @return the id, from 1
		 */
		public int id() {
			return this.id;
		}

		/**
		 * The client port on 127.0.0.1.
		 * @return the port
		 */
		public int clientPort() {
			return this.clientPort;
		}

		/**
		 * The port on 127.0.0.1 where the leader accepts followers; only the leader
		 * listens on it.
		 * @return the port
		 */
		public int quorumPort() {
			return this.quorumPort;
		}

		/**
		 * The port on 127.0.0.1 where the member accepts other members' election
		 * connections.
		 * @return the port
		 */
		public int electionPort() {
			return this.electionPort;
		}

		/**
		 * The ports on which the member accepts other members: quorum and election.
		 * @return the ports
		 */
		public List<Integer> peerPorts() {
			return List.of(this.quorumPort, this.electionPort);
		}

		/**
		 * The user the member runs as, given by the {@link Builder#firewall firewall}.
		 * @return the user id, -1 without a firewall
		 */
		public int uid() {
			return this.uid;
		}

		/**
		 * A connection string to this member alone.
		 * @return the connection string
		 */
		public String connectString() {
			return "127.0.0.1:" + this.clientPort;
		}

		/**
		 * The process id of the member's JVM, the current one after a restart.
		 * @return the pid
		 */
		public long pid() {
			return this.server.pid();
		}

		/**
		 * The member's data directory, kept across restarts.
		 * @return the data directory
		 */
		public Path dataDirectory() {
			return this.dataDirectory;
		}

		/**
		 * The file that receives the member's output.
		 * @return the log file
		 */
		public Path logFile() {
			return this.server.logFile();
		}

		/**
		 * Whether the member's process is alive, paused or not.
		 * @return whether it is alive
		 */
		public boolean isRunning() {
			return this.server.isAlive();
		}

		/**
		 * Whether the member is paused.
		 * @return whether it is paused
		 */
		public boolean isPaused() {
			return this.server.isPaused();
		}

		/**
		 * The mode that {@code srvr} reports, {@link ServerMode#UNREACHABLE} when the
		 * member is not running or is paused.
		 * @return the mode
		 */
		public ServerMode mode() {
			return (isRunning() && !isPaused()) ? FourLetterWords.mode(this.clientPort) : ServerMode.UNREACHABLE;
		}

		/**
		 * Start the member if it is not running, on the same ports and data directory.
		 * Does not wait: a member serves only once a quorum is up, see
		 * {@link #awaitServing()} and {@link ZooKeeperEnsemble#awaitQuorum()}.
		 */
		public void start() {
			if (!this.server.isAlive()) {
				this.server.start();
			}
		}

		/**
		 * Kill the member with SIGKILL ({@code kill -9}) and wait until its process has
		 * gone.
		 */
		public void kill() {
			this.server.kill();
		}

		/**
		 * Stop the member with SIGTERM and wait until its process has gone.
		 */
		public void stop() {
			this.server.stop();
		}

		/**
		 * Kill the member ({@code kill -9}), start it again and wait until it serves.
		 */
		public void restart() {
			kill();
			start();
			awaitServing();
		}

		/**
		 * Freeze the member with SIGSTOP.
		 */
		public void pause() {
			this.server.pause();
		}

		/**
		 * Let a paused member go on with SIGCONT. Does not wait.
		 */
		public void resume() {
			this.server.resume();
		}

		/**
		 * Wait until the member serves as leader or follower.
		 */
		public void awaitServing() {
			Poll.until(this + " to serve", ZooKeeperEnsemble.this.startupTimeout, () -> {
				this.server.requireNotExited();
				return mode().isServing();
			}, this.server::diagnostics);
		}

		@Override
		public String toString() {
			return "member " + this.id + " (" + connectString() + ")";
		}

		String connections() {
			try {
				return FourLetterWords.send(this.clientPort, "cons");
			}
			catch (IOException ex) {
				return "";
			}
		}

		private void writeMyId() {
			try {
				Files.writeString(this.dataDirectory.resolve("myid"), this.id + "\n", StandardCharsets.US_ASCII);
			}
			catch (IOException ex) {
				throw new IllegalStateException("Could not write myid of member " + this.id, ex);
			}
		}

	}

	/**
	 * Options of an ensemble.
	 */
	public static final class Builder {

		private int size = 3;

		private Duration tickTime = Duration.ofMillis(500);

		private @Nullable Duration containerCheckInterval;

		private List<String> jvmOptions = JvmProcess.DEFAULT_JVM_OPTIONS;

		private final Map<String, String> settings = new LinkedHashMap<>();

		private Duration startupTimeout = Duration.ofSeconds(90);

		private @Nullable LoopbackFirewall firewall;

		private Builder() {
		}

		/**
		 * The number of members.
		 * @param size the number of members, 3 by default
		 * @return this builder
		 */
		public Builder size(int size) {
			if (size < 2) {
				throw new IllegalArgumentException("An ensemble needs at least 2 members, not " + size
						+ "; use ZooKeeperProcess for a single server");
			}
			this.size = size;
			return this;
		}

		/**
		 * The members' tick time; session timeouts are clamped to 2 to 20 ticks and the
		 * election and sync limits count in ticks.
		 * @param tickTime the tick time, 500 ms by default
		 * @return this builder
		 */
		public Builder tickTime(Duration tickTime) {
			this.tickTime = tickTime;
			return this;
		}

		/**
		 * How often the leader removes empty container nodes
		 * ({@code znode.container.checkIntervalMs}, one minute by default).
		 * @param interval the sweep interval
		 * @return this builder
		 */
		public Builder containerCheckInterval(Duration interval) {
			this.containerCheckInterval = interval;
			return this;
		}

		/**
		 * The options of each member's JVM, replacing the defaults ({@code -Xmx96m},
		 * serial GC, C1 only).
		 * @param jvmOptions the JVM options
		 * @return this builder
		 */
		public Builder jvmOptions(List<String> jvmOptions) {
			this.jvmOptions = List.copyOf(jvmOptions);
			return this;
		}

		/**
		 * An extra {@code zoo.cfg} setting for every member.
		 * @param key the key
		 * @param value the value
		 * @return this builder
		 */
		public Builder setting(String key, String value) {
			this.settings.put(key, value);
			return this;
		}

		/**
		 * The longest wait for a quorum or for a member to serve.
		 * @param startupTimeout the timeout, 90 s by default
		 * @return this builder
		 */
		public Builder startupTimeout(Duration startupTimeout) {
			this.startupTimeout = startupTimeout;
			return this;
		}

		/**
		 * Run each member as a user of its own in the firewall, so that the connections
		 * between members can be cut.
		 * @param firewall the firewall, installed before the ensemble starts
		 * @return this builder
		 */
		public Builder firewall(LoopbackFirewall firewall) {
			this.firewall = firewall;
			return this;
		}

		/**
		 * Launch every member and wait until the ensemble has a quorum with one leader.
		 * @return the running ensemble
		 */
		public ZooKeeperEnsemble start() {
			ZooKeeperEnsemble ensemble = new ZooKeeperEnsemble(this);
			try {
				ensemble.start();
			}
			catch (RuntimeException ex) {
				ensemble.close();
				throw ex;
			}
			return ensemble;
		}

		private Map<String, String> systemProperties() {
			return (this.containerCheckInterval != null)
					? Map.of("znode.container.checkIntervalMs", Long.toString(this.containerCheckInterval.toMillis()))
					: Map.of();
		}

	}

}

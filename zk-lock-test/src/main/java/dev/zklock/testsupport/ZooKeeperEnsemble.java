package dev.zklock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

	private final Path directory;

	private final Duration startupTimeout;

	private final EnsembleMembers members;

	private ZooKeeperEnsemble(Builder builder) {
		this.directory = Directories.createTemporary("zk-lock-ensemble-");
		this.startupTimeout = builder.startupTimeout();
		List<EnsembleLayout.PlannedMember> planned = EnsembleLayout.plan(this.directory, builder.size,
				builder.firewall, builder, builder.jvm);
		this.members = new EnsembleMembers(planned.stream().map(Member::new).toList());
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
		return this.members.connectString();
	}

	/**
	 * The members, by id.
	 * @return the members
	 */
	public List<Member> members() {
		return this.members.all();
	}

	/**
	 * The member with the given {@code myid}.
	 * @param id the id, from 1
	 * @return the member
	 */
	public Member member(int id) {
		return this.members.byId(id);
	}

	/**
	 * Wait until the ensemble has a quorum and return its leader.
	 * @return the leader
	 */
	public Member leader() {
		awaitQuorum();
		return this.members.leader()
			.orElseThrow(() -> new IllegalStateException("The leader went away; modes: " + modes()));
	}

	/**
	 * Wait until every running, unpaused member serves and exactly one of them leads.
	 */
	public void awaitQuorum() {
		Poll.until("a quorum with one leader", this.startupTimeout, this.members::hasQuorum,
				this.members::diagnostics);
	}

	/**
	 * The member that the session with the given id is connected to, found with the
	 * {@code cons} four-letter word.
	 * @param sessionId the session id
	 * @return the member, empty when no running member lists the session
	 */
	public Optional<Member> memberConnectedTo(long sessionId) {
		return this.members.connectedTo(sessionId);
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
		return this.members.modes();
	}

	/**
	 * Copy every member's log, as it is now, into a directory that outlives the
	 * ensemble ({@link #close()} deletes the members' own), as
	 * {@code ensemble-member-N.log}.
	 * @param directory the directory, created when missing
	 * @return the copies, by member id
	 */
	public List<Path> keepLogs(Path directory) {
		try {
			Files.createDirectories(directory);
			List<Path> kept = new ArrayList<>();
			for (Member member : this.members.all()) {
				Path copy = directory.resolve("ensemble-member-" + member.id() + ".log");
				if (Files.exists(member.logFile())) {
					Files.copy(member.logFile(), copy, StandardCopyOption.REPLACE_EXISTING);
					kept.add(copy);
				}
			}
			return List.copyOf(kept);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not keep the members' logs in " + directory, ex);
		}
	}

	/**
	 * Kill every member and delete their directories.
	 */
	@Override
	public void close() {
		this.members.all().forEach(Member::kill);
		Directories.deleteRecursively(this.directory);
	}

	@Override
	public String toString() {
		return "ZooKeeperEnsemble[" + connectString() + "]";
	}

	private void start() {
		this.members.all().forEach(Member::start);
		awaitQuorum();
	}

	/**
	 * One server of the ensemble.
	 */
	public final class Member extends ZooKeeperServerJvm {

		private final int id;

		private final MemberPorts ports;

		private final int uid;

		private Member(EnsembleLayout.PlannedMember planned) {
			super(planned.process(), planned.ports().client(), planned.dataDirectory(),
					ZooKeeperEnsemble.this.startupTimeout);
			this.id = planned.id();
			this.ports = planned.ports();
			this.uid = planned.uid();
		}

		/**
		 * The member's {@code myid}.
		 * @return the id, from 1
		 */
		public int id() {
			return this.id;
		}

		/**
		 * The port on 127.0.0.1 where the leader accepts followers; only the leader
		 * listens on it.
		 * @return the port
		 */
		public int quorumPort() {
			return this.ports.quorum();
		}

		/**
		 * The port on 127.0.0.1 where the member accepts other members' election
		 * connections.
		 * @return the port
		 */
		public int electionPort() {
			return this.ports.election();
		}

		/**
		 * The ports on which the member accepts other members: quorum and election.
		 * @return the ports
		 */
		public List<Integer> peerPorts() {
			return List.of(quorumPort(), electionPort());
		}

		/**
		 * The user the member runs as, given by the {@link Builder#firewall firewall}.
		 * @return the user id, -1 without a firewall
		 */
		public int uid() {
			return this.uid;
		}

		/**
		 * Start the member if it is not running, on the same ports and data directory.
		 * Does not wait: a member serves only once a quorum is up, see
		 * {@link #awaitServing()} and {@link ZooKeeperEnsemble#awaitQuorum()}.
		 */
		public void start() {
			launchIfNotRunning();
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
		 * Wait until the member serves as leader or follower.
		 */
		@Override
		public void awaitServing() {
			awaitMode(ServerMode::isServing);
		}

		@Override
		public String toString() {
			return "member " + this.id + " (" + connectString() + ")";
		}

	}

	/**
	 * Options of an ensemble: three members, tick time 500 ms, startup timeout 90 s.
	 */
	public static final class Builder extends ServerOptions<Builder> {

		private final ServerJvmOptions jvm = new ServerJvmOptions();

		private int size = 3;

		private @Nullable LoopbackFirewall firewall;

		private Builder() {
			super(Duration.ofMillis(500), Duration.ofSeconds(90));
		}

		/**
		 * The options of each member's JVM, replacing the defaults ({@code -Xmx96m},
		 * serial GC, C1 only).
		 * @param jvmOptions the JVM options
		 * @return this builder
		 */
		public Builder jvmOptions(List<String> jvmOptions) {
			this.jvm.jvmOptions(jvmOptions);
			return this;
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
			return startOrClose(new ZooKeeperEnsemble(this), ZooKeeperEnsemble::start);
		}

	}

}

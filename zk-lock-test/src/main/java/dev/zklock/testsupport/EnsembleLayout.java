package dev.zklock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * Lays an ensemble out before it starts: each member's ports, directory, {@code myid},
 * {@code zoo.cfg}, user and process.
 */
final class EnsembleLayout {

	private static final String MAIN_CLASS = "org.apache.zookeeper.server.quorum.QuorumPeerMain";

	private EnsembleLayout() {
	}

	/**
	 * Prepare every member of an ensemble.
	 * @param directory the ensemble's directory
	 * @param size the number of members
	 * @param firewall the firewall that gives each member a user of its own, if any
	 * @param server the options of every member's server
	 * @param jvm the options of every member's JVM
	 * @return members 1 to {@code size}, not started
	 */
	static List<PlannedMember> plan(Path directory, int size, @Nullable LoopbackFirewall firewall,
			ServerOptions<?> server, ServerJvmOptions jvm) {
		List<MemberPorts> ports = MemberPorts.allocate(size);
		Map<String, String> quorum = MemberPorts.quorumSettings(ports);
		List<PlannedMember> members = new ArrayList<>();
		for (int id = 1; id <= size; id++) {
			MemberPorts memberPorts = ports.get(id - 1);
			Path memberDirectory = create(directory, id);
			Path dataDirectory = memberDirectory.resolve("data");
			ZooKeeperConfig config = server.config(dataDirectory.toString(), memberPorts.client(), quorum);
			JvmProcess.Builder process = jvm.process(
					"ensemble member " + id + " (client port " + memberPorts.client() + ")", MAIN_CLASS,
					memberDirectory, config, server.sweepProperties());
			int uid = (firewall != null) ? firewall.uid("ensemble member " + id) : -1;
			if (uid >= 0) {
				process.runAs(uid);
				handOver(memberDirectory, uid);
			}
			members.add(new PlannedMember(id, memberPorts, uid, process.build(), dataDirectory));
		}
		return members;
	}

	// the myid file tells the member which server.N it is
	private static Path create(Path ensembleDirectory, int id) {
		Path directory = Directories.create(ensembleDirectory.resolve("member-" + id));
		Path dataDirectory = Directories.create(directory.resolve("data"));
		try {
			Files.writeString(dataDirectory.resolve("myid"), id + "\n", StandardCharsets.US_ASCII);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not write myid of member " + id, ex);
		}
		return directory;
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
	 * A member ready to start.
	 * @param id its {@code myid}
	 * @param ports its ports
	 * @param uid the user it runs as, -1 without a firewall
	 * @param process its process, not started
	 * @param dataDirectory its data directory
	 */
	record PlannedMember(int id, MemberPorts ports, int uid, JvmProcess process, Path dataDirectory) {

	}

}

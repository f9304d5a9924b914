package dev.zklock.testsupport;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import dev.zklock.testsupport.ZooKeeperEnsemble.Member;

/**
 * The members of an ensemble taken together: which one leads, whether they form a
 * quorum, which one a session is connected to.
 */
final class EnsembleMembers {

	private final List<Member> members;

	EnsembleMembers(List<Member> members) {
		this.members = List.copyOf(members);
	}

	List<Member> all() {
		return this.members;
	}

	Member byId(int id) {
		if (id < 1 || id > this.members.size()) {
			throw new IllegalArgumentException(
					"No member " + id + ": the ensemble has members 1 to " + this.members.size());
		}
		return this.members.get(id - 1);
	}

	String connectString() {
		return this.members.stream().map(Member::connectString).collect(Collectors.joining(","));
	}

	Map<Integer, ServerMode> modes() {
		Map<Integer, ServerMode> modes = new LinkedHashMap<>();
		this.members.forEach((member) -> modes.put(member.id(), member.mode()));
		return modes;
	}

	// every running, unpaused member serves and exactly one of them leads
	boolean hasQuorum() {
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

	Optional<Member> leader() {
		return this.members.stream().filter((member) -> member.mode() == ServerMode.LEADER).findFirst();
	}

	// the cons four-letter word lists every session connected to a member
	Optional<Member> connectedTo(long sessionId) {
		String marker = "sid=0x" + Long.toHexString(sessionId) + ",";
		return this.members.stream()
			.filter((member) -> member.isRunning() && !member.isPaused())
			.filter((member) -> member.connections().contains(marker))
			.findFirst();
	}

	String diagnostics() {
		return "Modes: " + modes() + "\n"
				+ this.members.stream().map(Member::diagnostics).collect(Collectors.joining("\n"));
	}

}

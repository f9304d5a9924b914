package dev.zklock.testsupport;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The three ports on 127.0.0.1 of one ensemble member: clients, followers (the
 * quorum port, on which only the leader listens) and elections.
 *
 * @param client the client port
 * @param quorum the quorum port
 * @param election the election port
 */
record MemberPorts(int client, int quorum, int election) {

	/**
	 * Free ports for every member of an ensemble.
	 * @param size the number of members
	 * @return the ports of members 1 to {@code size}
	 */
	static List<MemberPorts> allocate(int size) {
		List<MemberPorts> ports = new ArrayList<>();
		for (int id = 1; id <= size; id++) {
			ports.add(new MemberPorts(FreePorts.next(), FreePorts.next(), FreePorts.next()));
		}
		return List.copyOf(ports);
	}

	/**
	 * The {@code zoo.cfg} settings that make the members one ensemble: the
	 * {@code server.N} lines and the election and sync limits.
	 * @param members the ports of members 1 to N
	 * @return the settings
	 */
	static Map<String, String> quorumSettings(List<MemberPorts> members) {
		Map<String, String> settings = new LinkedHashMap<>();
		settings.put("initLimit", "10");
		settings.put("syncLimit", "5");
		settings.put("reconfigEnabled", "false");
		for (int id = 1; id <= members.size(); id++) {
			MemberPorts ports = members.get(id - 1);
			settings.put("server." + id, "127.0.0.1:" + ports.quorum() + ":" + ports.election());
		}
		return settings;
	}

}

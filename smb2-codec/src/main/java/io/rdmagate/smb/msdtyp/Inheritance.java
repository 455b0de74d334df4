package io.rdmagate.smb.msdtyp;

import java.util.ArrayList;
import java.util.List;

/**
 * The descriptor a new file or directory starts with (MS-DTYP 2.5.3.4.1 CreateSecurityObject,
 * 2.5.3.4.2 ComputeInheritedACLfromParent): its creator as owner, the creator's primary group,
 * and the parent's inheritable ACEs, CREATOR OWNER and CREATOR GROUP replaced by the new
 * object's owner and group. A descriptor the creator supplies wins, merged with what it inherits
 * unless its DACL is protected.
 */
public final class Inheritance {
    private Inheritance() {
    }

    /**
     * The new object's descriptor, or null when neither the parent's DACL passes anything on nor
     * the creator supplies a DACL (then the default applies: the mode the object is created with).
     */
    public static SecurityDescriptor create(SecurityDescriptor parent, SecurityDescriptor supplied, boolean container,
            Sid owner, Sid group) {
        Sid o = supplied != null && supplied.owner() != null ? supplied.owner() : owner;
        Sid g = supplied != null && supplied.group() != null ? supplied.group() : group;
        // an inherited ACE says so only under auto-inheritance (MS-DTYP 2.5.3.4.2, as Windows answers smbtorture)
        int mark = parent != null && (parent.control() & SecurityDescriptor.SE_DACL_AUTO_INHERITED) != 0 ? Ace.INHERITED : 0;
        List<Ace> inherited = parent == null || parent.dacl() == null ? List.of()
                : inherit(parent.dacl(), container, o, g, mark);
        boolean suppliedDacl = supplied != null && supplied.daclPresent();
        if (!suppliedDacl && inherited.isEmpty()) {
            return null;
        }
        int autoInherited = parent != null ? parent.control() & SecurityDescriptor.SE_DACL_AUTO_INHERITED : 0;
        if (!suppliedDacl) {
            return new SecurityDescriptor(SecurityDescriptor.SE_DACL_PRESENT | autoInherited, o, g, null, Acl.of(inherited));
        }
        int control = SecurityDescriptor.SE_DACL_PRESENT
                | supplied.control() & (SecurityDescriptor.SE_DACL_PROTECTED | SecurityDescriptor.SE_DACL_AUTO_INHERITED);
        if ((supplied.control() & SecurityDescriptor.SE_DACL_PROTECTED) != 0 || supplied.dacl() == null
                || inherited.isEmpty()) {
            return new SecurityDescriptor(control, o, g, null, supplied.dacl() == null ? null : supplied.dacl().mapped());
        }
        List<Ace> merged = new ArrayList<>();
        for (Ace a : supplied.dacl().mapped().aces()) {
            if ((a.flags() & Ace.INHERITED) == 0) { // what it inherits comes from the parent, as the parent is now
                merged.add(a);
            }
        }
        merged.addAll(inherited);
        return new SecurityDescriptor(control | autoInherited, o, g, null, Acl.of(merged));
    }

    /** The ACEs of {@code parent} that a child inherits (2.5.3.4.2), in their order. */
    static List<Ace> inherit(Acl parent, boolean container, Sid owner, Sid group, int mark) {
        List<Ace> out = new ArrayList<>();
        for (Ace a : parent.aces()) {
            int f = a.flags();
            boolean ci = (f & Ace.CONTAINER_INHERIT) != 0;
            boolean oi = (f & Ace.OBJECT_INHERIT) != 0;
            boolean np = (f & Ace.NO_PROPAGATE_INHERIT) != 0;
            boolean effective;
            boolean passesOn;
            if (container) {
                effective = ci;
                passesOn = (ci || oi) && !np;
            } else {
                effective = oi;
                passesOn = false;
            }
            if (!effective && !passesOn) {
                continue;
            }
            Sid sid = a.sid().equals(Sid.CREATOR_OWNER) ? owner : a.sid().equals(Sid.CREATOR_GROUP) ? group : a.sid();
            int keep = f & (Ace.CONTAINER_INHERIT | Ace.OBJECT_INHERIT);
            boolean changes = !sid.equals(a.sid()) || (a.mask() & AccessMask.GENERIC) != 0;
            if (effective && passesOn && !changes) {
                out.add(new Ace(a.type(), keep | mark, a.mask(), sid));
                continue;
            }
            if (effective) {
                out.add(new Ace(a.type(), mark, AccessMask.mapGeneric(a.mask()), sid));
            }
            if (passesOn) {
                out.add(new Ace(a.type(), keep | Ace.INHERIT_ONLY | mark, a.mask(), a.sid()));
            }
        }
        return out;
    }
}
